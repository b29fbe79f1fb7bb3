package store_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

func ctRequireNotFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: want store.ErrNotFound, got %v", what, err)
	}
}

func ctSameJSONish(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g := strings.ReplaceAll(strings.ReplaceAll(fmt.Sprintf("%+v", got), ctBigScript, "<1MiB>"), "\n", " ")
		w := strings.ReplaceAll(strings.ReplaceAll(fmt.Sprintf("%+v", want), ctBigScript, "<1MiB>"), "\n", " ")
		t.Fatalf("%s differs after a trip through Redis:\n got %s\nwant %s", what, g, w)
	}
}

func TestStoreRoundTripActor(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	a := &model.Actor{
		Pubkey:    "12D3KooWActor" + ctUni,
		Address:   []string{"/ip4/127.0.0.1/tcp/4001", ctUni},
		CreatedAt: 1700000000,
		Extra:     model.Hash{"nick": ctUni},
	}
	if err := s.Registry.SaveActor(ctx, a); err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.UpdatedAt == 0 || a.CreatedAt != 1700000000 {
		t.Fatalf("SaveActor did not allocate id / stamp: %+v", a)
	}
	got, err := s.Registry.LoadActor(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "actor", got, a)
	byKey, err := s.Registry.ActorByPubkey(ctx, a.Pubkey)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "actor by pubkey", byKey, a)

	b := &model.Actor{Pubkey: "12D3KooWOther"}
	if err := s.Registry.SaveActor(ctx, b); err != nil {
		t.Fatal(err)
	}
	if b.ID == a.ID {
		t.Fatal("two actors got the same id")
	}
	list, err := s.Registry.ListActors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("ListActors returned %d actors, want 2", len(list))
	}
	for _, x := range list {
		if x.ID == a.ID {
			ctSameJSONish(t, "listed actor", x, a)
		}
	}
	if err := s.Registry.DeleteActor(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Registry.LoadActor(ctx, a.ID)
	ctRequireNotFound(t, "load deleted actor", err)
	_, err = s.Registry.ActorByPubkey(ctx, a.Pubkey)
	ctRequireNotFound(t, "pubkey of deleted actor", err)
	ctRequireNotFound(t, "delete twice", s.Registry.DeleteActor(ctx, a.ID))
	if list, _ := s.Registry.ListActors(ctx); len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("after delete ListActors = %v", list)
	}
}

func TestStoreRoundTripContext(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	c := &model.Context{
		ID:        5,
		Name:      "team " + ctUni,
		Admins:    []uint64{1},
		Readers:   []uint64{2, 3},
		Executors: []uint64{4},
		Extra:     model.Hash{"owner_note": ctUni},
	}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err := s.Registry.LoadContext(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "context", got, c)
	c.Readers = append(c.Readers, 9)
	c.Name = ""
	if err := s.Registry.SaveContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	got, err = s.Registry.LoadContext(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Readers, []uint64{2, 3, 9}) {
		t.Fatalf("saved readers not loaded: %v", got.Readers)
	}
	list, err := s.Registry.ListContexts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].ID != 5 || !slices.Equal(list[0].Readers, got.Readers) {
		t.Fatalf("ListContexts = %+v", list)
	}
	if err := s.Registry.DeleteContext(ctx, 5); err != nil {
		t.Fatal(err)
	}
	_, err = s.Registry.LoadContext(ctx, 5)
	ctRequireNotFound(t, "load deleted context", err)
	ctRequireNotFound(t, "delete twice", s.Registry.DeleteContext(ctx, 5))
	if list, _ := s.Registry.ListContexts(ctx); len(list) != 0 {
		t.Fatalf("registry still lists %d contexts", len(list))
	}
}

func TestStoreRoundTripFlow(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	f := &model.Flow{
		CallerID:  8,
		ContextID: 2,
		Name:      "nightly " + ctUni,
		Jobs:      []uint64{10, 11},
		EnvVars:   map[string]string{"A": "1", ctUni: ctUni, "EMPTY": ""},
		Result:    map[string]string{"out": strings.Repeat("é", 70000)},
		Status:    model.FlowStarted,
		CreatedAt: 100,
		Extra:     model.Hash{"x-trace": "abc"},
	}
	if err := s.Flows.SaveFlow(ctx, f); err != nil {
		t.Fatal(err)
	}
	if f.ID == 0 {
		t.Fatal("no id allocated")
	}
	got, err := s.Flows.LoadFlow(ctx, 2, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "flow", got, f)
	list, err := s.Flows.ListFlows(ctx, 2)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListFlows = %v, %v", list, err)
	}
	ctSameJSONish(t, "listed flow", list[0], f)
	if list, _ := s.Flows.ListFlows(ctx, 3); len(list) != 0 {
		t.Fatalf("flow of context 2 listed in context 3")
	}
	if err := s.Flows.DeleteFlow(ctx, 2, f.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Flows.LoadFlow(ctx, 2, f.ID)
	ctRequireNotFound(t, "deleted flow", err)
	ctRequireNotFound(t, "delete twice", s.Flows.DeleteFlow(ctx, 2, f.ID))
}

func TestStoreRoundTripRunner(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	r := &model.Runner{
		Pubkey:      "12D3KooWRunner",
		Address:     "/ip4/10.0.0.1/tcp/4001",
		Topic:       "hyphae/runner/" + ctUni,
		Local:       true,
		ScriptTypes: []string{"sh", "bash"},
		Extra:       model.Hash{"zone": "eu"},
	}
	if err := s.Registry.SaveRunner(ctx, 4, r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Registry.LoadRunner(ctx, 4, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "runner", got, r)
	r2 := &model.Runner{Pubkey: "p2"}
	if err := s.Registry.SaveRunner(ctx, 4, r2); err != nil {
		t.Fatal(err)
	}
	list, err := s.Registry.ListRunners(ctx, 4)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListRunners = %v, %v", list, err)
	}
	if err := s.Registry.DeleteRunner(ctx, 4, r.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Registry.LoadRunner(ctx, 4, r.ID)
	ctRequireNotFound(t, "deleted runner", err)
	ctRequireNotFound(t, "delete twice", s.Registry.DeleteRunner(ctx, 4, r.ID))
}

func TestStoreRoundTripJob(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	j := ctJob(3, 7, 0)
	j.Script = ctBigScript
	if err := s.Jobs.SaveJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if j.ID == 0 {
		t.Fatal("no id allocated")
	}
	got, err := s.Jobs.LoadJob(ctx, 3, 7, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "job", got, j)
	if got.Script != ctBigScript {
		t.Fatal("1 MiB script changed")
	}
	byKey, err := s.Jobs.LoadJobKey(ctx, 3, store.JobKey(7, j.ID))
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "job by key", byKey, j)

	// Empty values survive too.
	e := &model.RunnerJob{ContextID: 3, CallerID: 7}
	if err := s.Jobs.SaveJob(ctx, e); err != nil {
		t.Fatal(err)
	}
	if e.ID == j.ID {
		t.Fatal("ids not unique")
	}
	ge, err := s.Jobs.LoadJob(ctx, 3, 7, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ge.Script != "" || ge.Status != "" || len(ge.EnvVars) != 0 || len(ge.Prerequisites) != 0 || ge.Extra != nil {
		t.Fatalf("empty job loaded as %+v", ge)
	}

	list, err := s.Jobs.ListJobs(ctx, 3)
	if err != nil || len(list) != 2 {
		t.Fatalf("ListJobs = %d jobs, %v", len(list), err)
	}
	for _, x := range list {
		if x.ID == j.ID {
			ctSameJSONish(t, "listed job", x, j)
		}
	}
	if err := s.Jobs.DeleteJob(ctx, 3, 7, j.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Jobs.LoadJob(ctx, 3, 7, j.ID)
	ctRequireNotFound(t, "deleted job", err)
	ctRequireNotFound(t, "delete twice", s.Jobs.DeleteJob(ctx, 3, 7, j.ID))
}

func TestStoreRoundTripMessage(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	m := &model.Message{
		CallerID:          7,
		ContextID:         3,
		Message:           "hello " + ctUni,
		MessageType:       model.MsgTypeJob,
		MessageFormatType: "json",
		Timeout:           60,
		TimeoutAck:        5,
		TimeoutResult:     600,
		Job:               []*model.RunnerJob{ctJob(3, 7, 1), ctJob(3, 7, 2)},
		Logs:              []string{"l1", ctUni, ""},
		Status:            model.MsgAcknowledged,
		Dst:               "12D3KooWDst",
		Error:             "e " + ctUni,
		CreatedAt:         1,
		Extra:             model.Hash{"hop": "2"},
	}
	m.Job[1].Script = ctBigScript
	if err := s.Bus.SaveMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := s.Bus.LoadMessage(ctx, 3, 7, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "message", got, m)
	if len(got.Job) != 2 || got.Job[1].Script != ctBigScript {
		t.Fatal("embedded jobs changed")
	}
	list, err := s.Bus.ListMessages(ctx, 3)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListMessages = %v, %v", list, err)
	}
	ctSameJSONish(t, "listed message", list[0], m)
	if err := s.Bus.DeleteMessage(ctx, 3, 7, m.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Bus.LoadMessage(ctx, 3, 7, m.ID)
	ctRequireNotFound(t, "deleted message", err)
	ctRequireNotFound(t, "delete twice", s.Bus.DeleteMessage(ctx, 3, 7, m.ID))
}

func TestStoreRoundTripPeer(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	p := &model.Peer{
		PeerID:      "12D3KooWPeer",
		State:       model.PeerUp,
		Addrs:       []string{"/ip4/1.2.3.4/tcp/1"},
		Roles:       []string{"supervisor", "runner"},
		ScriptTypes: []string{"sh"},
		Capacity:    8,
		Load:        3,
		Version:     "0.1.0 " + ctUni,
		Uptime:      12345,
		FoundVia:    "mdns",
		LastSeen:    1700000000,
		Extra:       model.Hash{"region": "eu"},
	}
	if err := s.Registry.SavePeer(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.Registry.LoadPeer(ctx, p.PeerID)
	if err != nil {
		t.Fatal(err)
	}
	ctSameJSONish(t, "peer", got, p)
	list, err := s.Registry.ListPeers(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListPeers = %v, %v", list, err)
	}
	ctSameJSONish(t, "listed peer", list[0], p)
	if err := s.Registry.SavePeer(ctx, &model.Peer{}); err == nil {
		t.Fatal("peer without id saved")
	}
	_, err = s.Registry.LoadPeer(ctx, "12D3KooWUnknown")
	ctRequireNotFound(t, "unknown peer", err)
}

func TestStoreMeta(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	if err := s.SetMeta(ctx, model.Hash{"peer_id": "12D3KooWMe", "version": ctUni}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Registry.Meta(ctx)
	if err != nil || h["peer_id"] != "12D3KooWMe" || h["version"] != ctUni {
		t.Fatalf("Meta = %v, %v", h, err)
	}
	if n, _ := srv.Client(t, 0).Exists(ctx, store.NodeKey).Result(); n != 1 {
		t.Fatal("node metadata not in DB 0")
	}
}
