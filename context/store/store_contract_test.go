package store_test

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// ctStampedNow checks that a hash field holds unix seconds between lo and
// now (the value the store stamped), and removes it so the rest of the hash
// can be compared exactly.
func ctStampedNow(t *testing.T, h map[string]string, field string, lo int64) {
	t.Helper()
	v, ok := h[field]
	if !ok {
		t.Fatalf("field %s missing", field)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > time.Now().Unix() {
		t.Fatalf("%s = %q, want unix seconds in [%d, now]", field, v, lo)
	}
	delete(h, field)
}

func ctRequireHash(t *testing.T, c *redis.Client, key string, want map[string]string, stamped ...string) {
	t.Helper()
	got, err := c.HGetAll(t.Context(), key).Result()
	if err != nil {
		t.Fatalf("HGETALL %s: %v", key, err)
	}
	if len(got) == 0 {
		t.Fatalf("HGETALL %s (db %d): no such hash", key, c.Options().DB)
	}
	for _, f := range stamped {
		ctStampedNow(t, got, f, time.Now().Unix()-60)
	}
	if _, ok := want[model.JobTimelineField]; !ok && strings.HasPrefix(key, "job:") {
		if tl, ok := got[model.JobTimelineField]; ok && !strings.HasPrefix(tl, "[{") {
			t.Errorf("%s: timeline %q is no JSON list of entries", key, tl)
		}
		delete(got, model.JobTimelineField) // the store's own, written as the job moves
	}
	if !maps.Equal(got, want) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s field %s = %q, want %q", key, k, got[k], v)
			}
		}
		for k, v := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s has unexpected field %s = %q", key, k, v)
			}
		}
		t.FailNow()
	}
}

// TestStoreSeedKeysAndEncodings reads what the store wrote with a plain
// client and compares it with docs/design.md, "Redis layout" written out by hand.
func TestStoreSeedKeysAndEncodings(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	db0, db3 := srv.Client(t, 0), srv.Client(t, 3)

	a := &model.Actor{Pubkey: "12D3KooWAlice", Address: []string{"/ip4/1.2.3.4/tcp/1"}, CreatedAt: 1700000000}
	if err := s.Registry.SaveActor(ctx, a); err != nil {
		t.Fatal(err)
	}
	ctRequireHash(t, db0, "actor:1", map[string]string{
		"id": "1", "pubkey": "12D3KooWAlice", "address": `["/ip4/1.2.3.4/tcp/1"]`, "created_at": "1700000000",
	}, "updated_at")
	if v, err := db0.Get(ctx, "actor_by_pubkey:12D3KooWAlice").Result(); err != nil || v != "1" {
		t.Fatalf("actor_by_pubkey:12D3KooWAlice = %q, %v; want \"1\"", v, err)
	}

	c := &model.Context{ID: 3, Admins: []uint64{1}, Readers: []uint64{}, Executors: []uint64{2, 3}}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	wantCtx := map[string]string{"id": "3", "admins": "[1]", "readers": "[]", "executors": "[2,3]"}
	ctRequireHash(t, db3, "context:3", wantCtx, "created_at", "updated_at")
	ctRequireHash(t, db0, "context:3", wantCtx, "created_at", "updated_at") // registry copy

	f := &model.Flow{ID: 4, CallerID: 1, ContextID: 3, Name: "f", Jobs: []uint64{5, 6},
		EnvVars: map[string]string{"A": "b"}, Status: model.FlowDispatched, CreatedAt: 1700000000}
	if err := s.Flows.SaveFlow(ctx, f); err != nil {
		t.Fatal(err)
	}
	ctRequireHash(t, db3, "flow:4", map[string]string{
		"id": "4", "caller_id": "1", "context_id": "3", "name": "f", "jobs": "[5,6]",
		"env_vars": `{"A":"b"}`, "result": "{}", "status": "dispatched", "created_at": "1700000000",
	}, "updated_at")

	r := &model.Runner{ID: 2, Pubkey: "12D3KooWR", Address: "/ip4/1.2.3.4/tcp/2", Topic: "t",
		Local: true, ScriptTypes: []string{"sh"}, CreatedAt: 1700000000}
	if err := s.Registry.SaveRunner(ctx, 3, r); err != nil {
		t.Fatal(err)
	}
	ctRequireHash(t, db3, "runner:2", map[string]string{
		"id": "2", "pubkey": "12D3KooWR", "address": "/ip4/1.2.3.4/tcp/2", "topic": "t",
		"local": "true", "script_types": `["sh"]`, "created_at": "1700000000",
	}, "updated_at")

	j := &model.RunnerJob{ID: 42, CallerID: 7, ContextID: 3, Script: "echo hi", ScriptType: "sh",
		Timeout: 30, Retries: 1, EnvVars: map[string]string{"A": "1"}, Result: map[string]string{},
		Prerequisites: []string{"1", "2"}, Dependends: []uint64{3}, Status: model.JobWaiting,
		Runner: "12D3KooWR", Attempt: 1, CreatedAt: 1700000000}
	if err := s.Jobs.SaveJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	wantJob := map[string]string{
		"id": "42", "caller_id": "7", "context_id": "3", "script": "echo hi", "script_type": "sh",
		"timeout": "30", "retries": "1", "env_vars": `{"A":"1"}`, "result": "{}",
		"prerequisites": "[1,2]", "dependends": "[3]", "status": "waiting_for_prerequisites",
		"runner": "12D3KooWR", "error": "", "attempt": "1", "created_at": "1700000000",
	}
	ctRequireHash(t, db3, "job:7:42", wantJob, "updated_at")

	m := &model.Message{ID: 9, CallerID: 7, ContextID: 3, Message: "hi", MessageType: model.MsgTypeJob,
		MessageFormatType: "json", Timeout: 60, TimeoutAck: 5, TimeoutResult: 600,
		Job:    []*model.RunnerJob{{ID: 1, CallerID: 7, ContextID: 3, Script: "x", ScriptType: "sh"}},
		Status: model.MsgDispatched, Dst: "12D3KooWDst", CreatedAt: 1700000000}
	if err := s.Bus.SaveMessage(ctx, m); err != nil {
		t.Fatal(err)
	}
	wantEmbedded := `[{"attempt":"0","caller_id":"7","context_id":"3","created_at":"0","dependends":"[]",` +
		`"env_vars":"{}","error":"","id":"1","prerequisites":"[]","result":"{}","retries":"0","runner":"",` +
		`"script":"x","script_type":"sh","status":"","timeout":"0","updated_at":"0"}]`
	ctRequireHash(t, db3, "message:7:9", map[string]string{
		"id": "9", "caller_id": "7", "context_id": "3", "message": "hi", "message_type": "job",
		"message_format_type": "json", "timeout": "60", "timeout_ack": "5", "timeout_result": "600",
		"job": wantEmbedded, "logs": "[]", "status": "dispatched", "dst": "12D3KooWDst", "error": "",
		"created_at": "1700000000",
	}, "updated_at")

	// Queues: producers LPUSH, consumers take from the right (FIFO).
	for id := uint64(100); id < 103; id++ {
		if err := s.Jobs.EnqueueJob(ctx, &model.RunnerJob{ID: id, CallerID: 7, ContextID: 3, ScriptType: "bash"}); err != nil {
			t.Fatal(err)
		}
	}
	for id := 100; id < 103; id++ {
		v, err := db3.RPop(ctx, "queue:bash").Result()
		if err != nil || v != "job:7:"+strconv.Itoa(id) {
			t.Fatalf("RPOP queue:bash = %q, %v; want job:7:%d (FIFO)", v, err, id)
		}
	}
	ctRequireHash(t, db3, "job:7:100", map[string]string{
		"id": "100", "caller_id": "7", "context_id": "3", "script": "", "script_type": "bash",
		"timeout": "0", "retries": "0", "env_vars": "{}", "result": "{}", "prerequisites": "[]",
		"dependends": "[]", "status": "dispatched", "runner": "", "error": "", "attempt": "1",
	}, "created_at", "updated_at")

	pm := &model.Message{ID: 10, CallerID: 7, ContextID: 3, MessageType: model.MsgTypeChat, Message: "yo"}
	if err := s.Bus.PushMessage(ctx, pm.ContextID, pm, store.MsgOutKey); err != nil {
		t.Fatal(err)
	}
	if v, err := db3.RPop(ctx, "msg_out").Result(); err != nil || v != "message:7:10" {
		t.Fatalf("RPOP msg_out = %q, %v", v, err)
	}
	if st, _ := db3.HGet(ctx, "message:7:10", "status").Result(); st != "dispatched" {
		t.Fatalf("pushed message status = %q", st)
	}

	p := &model.Peer{PeerID: "12D3KooWP", State: model.PeerDown, Capacity: 2, LastSeen: 1700000000}
	if err := s.Registry.SavePeer(ctx, p); err != nil {
		t.Fatal(err)
	}
	ctRequireHash(t, db0, "peer:12D3KooWP", map[string]string{
		"peer_id": "12D3KooWP", "state": "down", "addrs": "[]", "roles": "[]", "script_types": "[]",
		"capacity": "2", "load": "0", "version": "", "uptime": "0", "found_via": "", "last_seen": "1700000000",
	})

	// Key helpers build exactly the seed names.
	for got, want := range map[string]string{
		store.ActorKey(1): "actor:1", store.ActorByPubkeyKey("p"): "actor_by_pubkey:p",
		store.ContextKey(3): "context:3", store.FlowKey(4): "flow:4", store.MessageKey(7, 9): "message:7:9",
		store.RunnerKey(2): "runner:2", store.JobKey(7, 42): "job:7:42", store.QueueKey("sh"): "queue:sh",
		store.MsgOutKey: "msg_out", store.MsgInKey: "msg_in",
	} {
		if got != want {
			t.Errorf("key helper gives %q, want %q", got, want)
		}
	}
	if c, id, err := store.ParseJobKey("job:7:42"); err != nil || c != 7 || id != 42 {
		t.Errorf("ParseJobKey = %d %d %v", c, id, err)
	}
	for _, bad := range []string{"job:7", "job:x:1", "message:1:2", "job:1:-2", ""} {
		if _, _, err := store.ParseJobKey(bad); err == nil {
			t.Errorf("ParseJobKey(%q) accepted", bad)
		}
	}
}

// TestStoreDBSelection: context N's objects live in DB N, node-global ones
// in DB 0, and nowhere else.
func TestStoreDBSelection(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	j := ctJob(3, 7, 42)
	if err := s.Jobs.SaveJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.EnqueueJob(ctx, ctJob(3, 7, 43)); err != nil {
		t.Fatal(err)
	}
	if err := s.Flows.SaveFlow(ctx, &model.Flow{ID: 1, ContextID: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.Bus.SaveMessage(ctx, &model.Message{ID: 1, CallerID: 7, ContextID: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.Registry.SaveRunner(ctx, 3, &model.Runner{ID: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.Registry.CreateContext(ctx, &model.Context{ID: 3}); err != nil {
		t.Fatal(err)
	}
	if err := s.Registry.SaveActor(ctx, &model.Actor{ID: 1, Pubkey: "12D3KooWA"}); err != nil {
		t.Fatal(err)
	}
	where := func(key string) []int {
		var dbs []int
		for db := 0; db < 8; db++ {
			n, err := srv.Client(t, db).Exists(ctx, key).Result()
			if err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				dbs = append(dbs, db)
			}
		}
		return dbs
	}
	for key, want := range map[string][]int{
		"job:7:42":                  {3},
		"job:7:43":                  {3},
		"queue:sh":                  {3},
		"flow:1":                    {3},
		"message:7:1":               {3},
		"runner:1":                  {3},
		"context:3":                 {0, 3},
		"actor:1":                   {0},
		"actor_by_pubkey:12D3KooWA": {0},
	} {
		if got := where(key); !slices.Equal(got, want) {
			t.Errorf("%s lives in DBs %v, want %v", key, got, want)
		}
	}
	// The same job id in another context is another object.
	other := ctJob(4, 7, 42)
	other.Script = "other"
	if err := s.Jobs.SaveJob(ctx, other); err != nil {
		t.Fatal(err)
	}
	got, err := s.Jobs.LoadJob(ctx, 3, 7, 42)
	if err != nil || got.Script != j.Script {
		t.Fatalf("context 3's job changed by a save in context 4: %v %v", got.Script, err)
	}
	// A plain client on DB 3 sees the store's job.
	if v, err := srv.Client(t, 3).HGet(ctx, "job:7:42", "script").Result(); err != nil || v != j.Script {
		t.Fatalf("raw HGET on DB 3 = %q, %v", v, err)
	}
}

// TestStoreThirdPartyHashes loads hashes written by a plain client, as in
// `redis-cli HSET …`.
func TestStoreThirdPartyHashes(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	db2, db0 := srv.Client(t, 2), srv.Client(t, 0)

	t.Run("extra fields preserved", func(t *testing.T) {
		if err := db2.HSet(ctx, "job:5:1", "id", "1", "caller_id", "5", "context_id", "2",
			"script", "echo hi", "script_type", "sh", "status", "dispatched",
			"custom_field", "xyz", "other_tool_meta", `{"a":1}`).Err(); err != nil {
			t.Fatal(err)
		}
		j, err := s.Jobs.LoadJob(ctx, 2, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if j.Script != "echo hi" || j.Status != model.JobDispatched || j.Extra["custom_field"] != "xyz" {
			t.Fatalf("loaded %+v", j)
		}
		j.Result = map[string]string{"out": "hi"}
		if err := s.Jobs.SaveJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs.SetJobStatus(ctx, 2, "job:5:1", 0, model.JobStarted, nil); err != nil {
			t.Fatal(err)
		}
		h, _ := db2.HGetAll(ctx, "job:5:1").Result()
		if h["custom_field"] != "xyz" || h["other_tool_meta"] != `{"a":1}` || h["result"] != `{"out":"hi"}` || h["status"] != "started" {
			t.Fatalf("after save, hash = %v", h)
		}
	})

	t.Run("missing optional fields", func(t *testing.T) {
		if err := db2.HSet(ctx, "job:5:2", "script", "echo hi", "script_type", "sh").Err(); err != nil {
			t.Fatal(err)
		}
		j, err := s.Jobs.LoadJob(ctx, 2, 5, 2)
		if err != nil {
			t.Fatal(err)
		}
		if j.Script != "echo hi" || j.Status != "" || j.Attempt != 0 || j.Extra != nil {
			t.Fatalf("loaded %+v", j)
		}
		// The ids come from the key and the DB when the hash leaves them out,
		// so saving it back writes the same key.
		if j.ID != 2 || j.CallerID != 5 || j.ContextID != 2 {
			t.Fatalf("ids of job:5:2 in context 2 loaded as id=%d caller=%d context=%d", j.ID, j.CallerID, j.ContextID)
		}
		if err := s.Jobs.SaveJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		if n, _ := db2.Exists(ctx, "job:0:1", "job:0:2", "job:5:3").Result(); n != 0 {
			t.Fatal("saving a loaded job wrote another key")
		}
		// The lifecycle accepts a job that never had a status.
		if err := s.Jobs.SetJobStatus(ctx, 2, "job:5:2", 0, model.JobStarted, nil); err != nil {
			t.Fatal(err)
		}
		list, err := s.Jobs.ListJobs(ctx, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.ContextID != 2 || x.ID == 0 || x.CallerID != 5 {
				t.Errorf("listed job has ids %d/%d/%d", x.ContextID, x.CallerID, x.ID)
			}
		}
		if err := db2.HSet(ctx, "message:5:1", "message_type", "chat", "message", "hi").Err(); err != nil {
			t.Fatal(err)
		}
		m, err := s.Bus.LoadMessage(ctx, 2, 5, 1)
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != 1 || m.CallerID != 5 || m.ContextID != 2 || m.MessageType != model.MsgTypeChat {
			t.Fatalf("message loaded as %+v", m)
		}
	})

	t.Run("plain client job runs through the queue", func(t *testing.T) {
		// HSET … then LPUSH queue:<type>, as §3 describes; the store moves
		// it through its lifecycle and a waiter sees the result.
		if err := db2.HSet(ctx, "job:9:1", "id", "1", "caller_id", "9", "script", "true", "script_type", "sh").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db2.LPush(ctx, "queue:sh", "job:9:1").Err(); err != nil {
			t.Fatal(err)
		}
		key, err := db2.RPop(ctx, "queue:sh").Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs.SetJobStatus(ctx, 2, key, 0, model.JobStarted, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs.CompleteJob(ctx, 2, key, 0, model.JobFinished, model.Hash{"result": `{"ok":"yes"}`}); err != nil {
			t.Fatal(err)
		}
		if v, err := db2.BLPop(ctx, time.Second, "reply:job:9:1").Result(); err != nil || v[1] != "finished" {
			t.Fatalf("BLPOP reply:job:9:1 = %v, %v", v, err)
		}
		h, _ := db2.HGetAll(ctx, "job:9:1").Result()
		if h["status"] != "finished" || h["result"] != `{"ok":"yes"}` {
			t.Fatalf("hash after completion = %v", h)
		}
		// The most minimal hash (no id, no status) goes through too.
		if err := db2.HSet(ctx, "job:9:2", "script", "true", "script_type", "sh").Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs.SetJobStatus(ctx, 2, "job:9:2", 0, model.JobStarted, nil); err != nil {
			t.Fatalf("minimal hand-written job: %v", err)
		}
		if _, err := s.Jobs.RequeueJob(ctx, 2, "job:9:2", "sh", 0, nil); err != nil {
			t.Fatalf("minimal hand-written job: %v", err)
		}
		if err := s.Jobs.CompleteJob(ctx, 2, "job:9:2", 0, model.JobError, nil); err != nil {
			t.Fatalf("minimal hand-written job: %v", err)
		}
	})

	t.Run("garbage fields name key and field", func(t *testing.T) {
		cases := []struct {
			db    *redis.Client
			key   string
			field string
			val   string
			load  func() error
		}{
			{db2, "job:5:3", "timeout", "soon", func() error { _, err := s.Jobs.LoadJob(ctx, 2, 5, 3); return err }},
			{db2, "job:5:4", "prerequisites", "1,2", func() error { _, err := s.Jobs.LoadJobKey(ctx, 2, "job:5:4"); return err }},
			{db2, "job:5:5", "status", "done", func() error { _, err := s.Jobs.LoadJob(ctx, 2, 5, 5); return err }},
			{db2, "flow:1", "env_vars", "A=b", func() error { _, err := s.Flows.LoadFlow(ctx, 2, 1); return err }},
			{db2, "runner:1", "local", "yes", func() error { _, err := s.Registry.LoadRunner(ctx, 2, 1); return err }},
			{db2, "message:5:2", "timeout_ack", "5s", func() error { _, err := s.Bus.LoadMessage(ctx, 2, 5, 2); return err }},
			{db2, "context:2", "admins", "alice", func() error { _, err := s.Registry.LoadContext(ctx, 2); return err }},
			{db0, "actor:9", "created_at", "yesterday", func() error { _, err := s.Registry.LoadActor(ctx, 9); return err }},
			{db0, "peer:12D3KooWX", "capacity", "lots", func() error { _, err := s.Registry.LoadPeer(ctx, "12D3KooWX"); return err }},
		}
		for _, c := range cases {
			if err := c.db.HSet(ctx, c.key, "id", "1", c.field, c.val).Err(); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("%s %s: panic %v", c.key, c.field, p)
					}
				}()
				ctFieldError(t, c.load(), c.key, c.field)
			}()
		}
		// A bad embedded job names the message.
		if err := db2.HSet(ctx, "message:5:3", "job", `[{"id":"1","retries":"many"}]`).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := s.Bus.LoadMessage(ctx, 2, 5, 3)
		ctFieldError(t, err, "message:5:3 job", "retries")

		// Listing reports the bad hash by key and field rather than
		// skipping it silently.
		_, err = s.Jobs.ListJobs(ctx, 2)
		var fe *model.FieldError
		if !errors.As(err, &fe) || !slices.Contains([]string{"job:5:3", "job:5:4", "job:5:5"}, fe.Key) {
			t.Fatalf("ListJobs with garbage: %v", err)
		}
		_, err = s.Registry.ListActors(ctx)
		ctFieldError(t, err, "actor:9", "created_at")
		// Authorize on a context whose hash is garbage says so.
		if _, err := s.Registry.EnsureActor(ctx, "12D3KooWAuth"); err != nil {
			t.Fatal(err)
		}
		_, err = s.Registry.Authorize(ctx, 2, "12D3KooWAuth", model.RoleReader)
		if !errors.Is(err, store.ErrDenied) {
			t.Fatalf("Authorize on garbage context: %v", err)
		}
		ctFieldError(t, err, "context:2", "admins")
	})

	t.Run("non-hash keys", func(t *testing.T) {
		if err := db2.Set(ctx, "job:6:1", "not a hash", 0).Err(); err != nil {
			t.Fatal(err)
		}
		_, err := s.Jobs.LoadJob(ctx, 2, 6, 1)
		if err == nil || !strings.Contains(err.Error(), "job:6:1") {
			t.Fatalf("loading a string key: %v", err)
		}
		// Listing skips keys that are not hashes.
		if err := db0.Set(ctx, "peer:junk", "x", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.Registry.SavePeer(ctx, &model.Peer{PeerID: "12D3KooWOk"}); err != nil {
			t.Fatal(err)
		}
		db0.Del(ctx, "peer:12D3KooWX")
		list, err := s.Registry.ListPeers(ctx)
		if err != nil || len(list) != 1 || list[0].PeerID != "12D3KooWOk" {
			t.Fatalf("ListPeers with a string key under peer:* = %v, %v", list, err)
		}
	})
}
