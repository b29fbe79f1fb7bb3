package store_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

func TestStoreContextIDsRefused(t *testing.T) {
	s, srv := ctOpen(t, testredis.Options{Databases: 4})
	ctx := ctCtx(t)
	if s.Databases() != 4 {
		t.Fatalf("Databases() = %d, want 4 (CONFIG GET databases)", s.Databases())
	}
	ops := map[string]func(id uint64) error{
		"DB":            func(id uint64) error { _, err := s.DB(id); return err },
		"CreateContext": func(id uint64) error { return s.Registry.CreateContext(ctx, &model.Context{ID: id}) },
		"LoadContext":   func(id uint64) error { _, err := s.Registry.LoadContext(ctx, id); return err },
		"SaveJob":       func(id uint64) error { return s.Jobs.SaveJob(ctx, &model.RunnerJob{ID: 1, ContextID: id}) },
		"EnqueueJob":    func(id uint64) error { return s.Jobs.EnqueueJob(ctx, &model.RunnerJob{ID: 1, ContextID: id}) },
		"LoadJob":       func(id uint64) error { _, err := s.Jobs.LoadJob(ctx, id, 1, 1); return err },
		"ListJobs":      func(id uint64) error { _, err := s.Jobs.ListJobs(ctx, id); return err },
		"SaveFlow":      func(id uint64) error { return s.Flows.SaveFlow(ctx, &model.Flow{ID: 1, ContextID: id}) },
		"SaveMessage":   func(id uint64) error { return s.Bus.SaveMessage(ctx, &model.Message{ID: 1, ContextID: id}) },
		"PushMessage": func(id uint64) error {
			return s.Bus.PushMessage(ctx, id, &model.Message{ID: 1, ContextID: id}, store.MsgOutKey)
		},
		"SaveRunner":   func(id uint64) error { return s.Registry.SaveRunner(ctx, id, &model.Runner{ID: 1}) },
		"SetJobStatus": func(id uint64) error { return s.Jobs.SetJobStatus(ctx, id, "job:1:1", 0, model.JobStarted, nil) },
		"WaitJob":      func(id uint64) error { _, err := s.Jobs.WaitJob(ctx, id, "job:1:1"); return err },
	}
	for _, id := range []uint64{0, 4, 5, 64, 1 << 40} {
		for name, op := range ops {
			if name == "CreateContext" && id == 0 {
				continue // 0 asks for the lowest free id; tested below
			}
			err := op(id)
			if !errors.Is(err, store.ErrBadContext) {
				t.Errorf("%s(context %d): want ErrBadContext, got %v", name, id, err)
				continue
			}
			msg := err.Error()
			if id == 0 && !strings.Contains(msg, "context 0 does not exist") {
				t.Errorf("%s(0): unclear message %q", name, msg)
			}
			if id != 0 && (!strings.Contains(msg, fmt.Sprintf("context %d", id)) || !strings.Contains(msg, "4 databases")) {
				t.Errorf("%s(%d): message %q should name the context and the server's 4 databases", name, id, msg)
			}
		}
	}
	// Nothing was written anywhere by the refused calls.
	for db := 0; db < 4; db++ {
		if n, _ := srv.Client(t, db).DBSize(ctx).Result(); n != 0 {
			t.Errorf("DB %d has %d keys after refused calls", db, n)
		}
	}
	// The highest selectable context works.
	if err := s.Jobs.SaveJob(ctx, &model.RunnerJob{ID: 1, CallerID: 1, ContextID: 3}); err != nil {
		t.Fatalf("context 3 of 4 databases: %v", err)
	}
	if n, _ := srv.Client(t, 3).Exists(ctx, "job:1:1").Result(); n != 1 {
		t.Fatal("job of context 3 not in DB 3")
	}
}

func TestStoreCreateContext(t *testing.T) {
	s, _ := ctOpen(t, testredis.Options{Databases: 4})
	ctx := ctCtx(t)
	var ids []uint64
	for i := 0; i < 3; i++ {
		c := &model.Context{Name: fmt.Sprint("c", i)}
		if err := s.Registry.CreateContext(ctx, c); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if !slices.Equal(ids, []uint64{1, 2, 3}) {
		t.Fatalf("allocated ids %v, want 1 2 3", ids)
	}
	err := s.Registry.CreateContext(ctx, &model.Context{})
	if !errors.Is(err, store.ErrBadContext) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("creating a 4th context on a 4-DB server: %v", err)
	}
	// Duplicates are refused and the existing context is left alone.
	err = s.Registry.CreateContext(ctx, &model.Context{ID: 2, Name: "dup", Admins: []uint64{99}})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("duplicate id 2: want ErrExists, got %v", err)
	}
	c2, err := s.Registry.LoadContext(ctx, 2)
	if err != nil || c2.Name != "c1" || len(c2.Admins) != 0 {
		t.Fatalf("context 2 after refused duplicate: %+v %v", c2, err)
	}
	// The lowest free id is picked after a delete.
	if err := s.Registry.DeleteContext(ctx, 2); err != nil {
		t.Fatal(err)
	}
	c := &model.Context{}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	if c.ID != 2 {
		t.Fatalf("after deleting 2 the next context got %d, want 2", c.ID)
	}

	// With an explicit id the lowest free id skips it.
	s2, _ := ctOpen(t)
	if err := s2.Registry.CreateContext(ctx, &model.Context{ID: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s2.Registry.CreateContext(ctx, &model.Context{ID: 3}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint64{2, 4} {
		c := &model.Context{}
		if err := s2.Registry.CreateContext(ctx, c); err != nil || c.ID != want {
			t.Fatalf("allocated %d (%v), want %d", c.ID, err, want)
		}
	}
}

// grantedContext makes an actor "12D3KooW<name>" for each name, a new
// context, and grants the roles given.
func grantedContext(t *testing.T, s *store.Store, names []string, roles map[string]model.Role) (map[string]*model.Actor, *model.Context) {
	t.Helper()
	ctx := ctCtx(t)
	actor := map[string]*model.Actor{}
	for _, n := range names {
		a, err := s.Registry.EnsureActor(ctx, "12D3KooW"+n)
		if err != nil {
			t.Fatal(err)
		}
		actor[n] = a
	}
	c := &model.Context{}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	for n, r := range roles {
		if _, err := s.Registry.Grant(ctx, c.ID, actor[n].ID, r); err != nil {
			t.Fatalf("grant %s %s: %v", n, r, err)
		}
	}
	return actor, c
}

func TestStoreGrantRevokeAuthorize(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"alice", "bob", "carol", "dave"},
		map[string]model.Role{"alice": model.RoleAdmin, "bob": model.RoleExecutor, "carol": model.RoleReader})
	// Granting twice changes nothing.
	got, err := s.Registry.Grant(ctx, c.ID, actor["alice"].ID, model.RoleAdmin)
	if err != nil || !slices.Equal(got.Admins, []uint64{actor["alice"].ID}) {
		t.Fatalf("second grant: %v %v", got.Admins, err)
	}

	check := func(name string, want [3]bool) {
		t.Helper()
		for i, r := range []model.Role{model.RoleReader, model.RoleExecutor, model.RoleAdmin} {
			a, err := s.Registry.Authorize(ctx, c.ID, "12D3KooW"+name, r)
			switch {
			case want[i] && err != nil:
				t.Errorf("%s as %s: %v", name, r, err)
			case want[i] && a.ID != actor[name].ID:
				t.Errorf("%s as %s: returned actor %d", name, r, a.ID)
			case !want[i] && !errors.Is(err, store.ErrDenied):
				t.Errorf("%s as %s: want ErrDenied, got %v", name, r, err)
			case !want[i] && !strings.Contains(err.Error(), "lacks role "+string(r)):
				t.Errorf("%s as %s: message %q does not say which role is missing", name, r, err)
			}
		}
	}
	// admin implies executor implies reader.
	check("alice", [3]bool{true, true, true})
	check("bob", [3]bool{true, true, false})
	check("carol", [3]bool{true, false, false})
	check("dave", [3]bool{false, false, false})

	_, err = s.Registry.Authorize(ctx, c.ID, "12D3KooWmallory", model.RoleReader)
	if !errors.Is(err, store.ErrDenied) || !strings.Contains(err.Error(), "unknown actor") {
		t.Fatalf("unknown actor: %v", err)
	}
	_, err = s.Registry.Authorize(ctx, 9, "12D3KooWalice", model.RoleReader)
	if !errors.Is(err, store.ErrDenied) || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("context that does not exist: %v", err)
	}
	_, err = s.Registry.Authorize(ctx, 0, "12D3KooWalice", model.RoleReader)
	if !errors.Is(err, store.ErrDenied) || !errors.Is(err, store.ErrBadContext) {
		t.Fatalf("context 0: %v", err)
	}

	// Revoke takes the role away, and with it the weaker ones it implied.
	if _, err := s.Registry.Revoke(ctx, c.ID, actor["bob"].ID, model.RoleExecutor); err != nil {
		t.Fatal(err)
	}
	check("bob", [3]bool{false, false, false})
	if _, err := s.Registry.Revoke(ctx, c.ID, actor["dave"].ID, model.RoleAdmin); err != nil {
		t.Fatalf("revoking a role not held: %v", err)
	}
	// An admin who is also listed as reader keeps reading after losing admin.
	if _, err := s.Registry.Grant(ctx, c.ID, actor["alice"].ID, model.RoleReader); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Registry.Revoke(ctx, c.ID, actor["alice"].ID, model.RoleAdmin); err != nil {
		t.Fatal(err)
	}
	check("alice", [3]bool{true, false, false})

	if _, err := s.Registry.Grant(ctx, c.ID, 1, "owner"); err == nil || !strings.Contains(err.Error(), "unknown role") {
		t.Fatalf("grant of unknown role: %v", err)
	}
	if _, err := s.Registry.Revoke(ctx, c.ID, 1, "owner"); err == nil {
		t.Fatal("revoke of unknown role accepted")
	}
	if _, err := s.Registry.Grant(ctx, 9, 1, model.RoleReader); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("grant in missing context: %v", err)
	}

	// Both copies of the context carry the grants.
	for _, db := range []int{0, int(c.ID)} {
		h, _ := srv.Client(t, db).HGetAll(ctx, store.ContextKey(c.ID)).Result()
		if h["readers"] != fmt.Sprintf("[%d,%d]", actor["carol"].ID, actor["alice"].ID) || h["admins"] != "[]" {
			t.Errorf("DB %d context copy = %v", db, h)
		}
	}
}

func TestStoreGrantConcurrent(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	c := &model.Context{}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := uint64(1); i <= 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Registry.Grant(ctx, c.ID, i, model.RoleExecutor)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Registry.LoadContext(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got.Executors)
	if !slices.Equal(got.Executors, []uint64{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Fatalf("concurrent grants lost some: %v", got.Executors)
	}
}

func TestStoreEnsureActor(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	a, err := s.Registry.EnsureActor(ctx, "12D3KooWAlice")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Registry.EnsureActor(ctx, "12D3KooWAlice")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == 0 || a.ID != b.ID || b.Pubkey != "12D3KooWAlice" {
		t.Fatalf("EnsureActor not idempotent: %+v %+v", a, b)
	}
	got, err := s.Registry.ActorByPubkey(ctx, "12D3KooWAlice")
	if err != nil || got.ID != a.ID {
		t.Fatalf("ActorByPubkey = %+v, %v", got, err)
	}
	_, err = s.Registry.ActorByPubkey(ctx, "12D3KooWNobody")
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown pubkey: %v", err)
	}

	// Many agents racing to register the same key end with one actor.
	var wg sync.WaitGroup
	ids := make(chan uint64, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, err := s.Registry.EnsureActor(ctx, "12D3KooWRace")
			if err != nil {
				t.Error(err)
				return
			}
			ids <- a.ID
		}()
	}
	wg.Wait()
	close(ids)
	var first uint64
	for id := range ids {
		if first == 0 {
			first = id
		}
		if id != first {
			t.Fatalf("racing EnsureActor returned ids %d and %d", first, id)
		}
	}
	list, err := s.Registry.ListActors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, x := range list {
		if x.Pubkey == "12D3KooWRace" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d actor hashes for one pubkey", n)
	}

	// Another actor cannot take a pubkey that is in use.
	err = s.Registry.SaveActor(ctx, &model.Actor{Pubkey: "12D3KooWAlice"})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("second actor with alice's key: %v", err)
	}
	// Saving the owner again is fine.
	a.Address = []string{"/ip4/1.1.1.1/tcp/1"}
	if err := s.Registry.SaveActor(ctx, a); err != nil {
		t.Fatal(err)
	}
	if v, _ := srv.Client(t, 0).Get(ctx, store.ActorByPubkeyKey("12D3KooWAlice")).Result(); v != fmt.Sprint(a.ID) {
		t.Fatalf("index = %q", v)
	}

	// A changed pubkey no longer finds, or authorises, the actor.
	c := &model.Context{Admins: []uint64{a.ID}}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	a.Pubkey = "12D3KooWAliceNew"
	if err := s.Registry.SaveActor(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Registry.ActorByPubkey(ctx, "12D3KooWAlice"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("old pubkey after the change: %v", err)
	}
	if _, err := s.Registry.Authorize(ctx, c.ID, "12D3KooWAlice", model.RoleAdmin); !errors.Is(err, store.ErrDenied) {
		t.Fatalf("old pubkey still authorised: %v", err)
	}
	if got, err := s.Registry.Authorize(ctx, c.ID, "12D3KooWAliceNew", model.RoleAdmin); err != nil || got.ID != a.ID {
		t.Fatalf("new pubkey: %+v, %v", got, err)
	}
	// The old key can be registered afresh, as a new actor.
	fresh, err := s.Registry.EnsureActor(ctx, "12D3KooWAlice")
	if err != nil || fresh.ID == a.ID {
		t.Fatalf("old key registered again: %+v, %v", fresh, err)
	}
}
