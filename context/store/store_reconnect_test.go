package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// TestStoreReconnect kills the redis-server under a live Store, restarts it
// on the same port, and checks that the same Store carries on — on DB 0 and
// on a context DB whose client existed before the crash, including the Lua
// scripts (which the restarted server no longer has cached).
func TestStoreReconnect(t *testing.T) {
	opts := testredis.Options{AOF: true}
	s, srv := ctOpen(t, opts)
	ctx := ctCtx(t)

	alice, err := s.Registry.EnsureActor(ctx, "12D3KooWAlice")
	if err != nil {
		t.Fatal(err)
	}
	c := &model.Context{ID: 3, Admins: []uint64{alice.ID}}
	if err := s.Registry.CreateContext(ctx, c); err != nil {
		t.Fatal(err)
	}
	before := &model.RunnerJob{CallerID: 1, ContextID: 3, Script: "echo before", ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, before); err != nil { // loads the script
		t.Fatal(err)
	}

	srv.Kill()

	// While it is down, calls fail with an error rather than hang, and an
	// outage is not reported as a missing actor.
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	if _, err := s.Jobs.LoadJob(dctx, 3, 1, before.ID); err == nil {
		t.Fatal("LoadJob succeeded with redis-server killed")
	}
	_, err = s.Registry.Authorize(dctx, 3, "12D3KooWAlice", model.RoleAdmin)
	cancel()
	if err == nil {
		t.Fatal("Authorize succeeded with redis-server killed")
	}
	if strings.Contains(err.Error(), "not registered") || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("outage reported as an unknown actor: %v", err)
	}

	srv.Restart(t, opts)
	ctEventually(t, "the store to reconnect", func() bool {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return s.Ping(pctx) == nil
	})

	// Data written before the crash is there (AOF, fsync always). Each
	// context DB has its own pool, which redials on its own schedule.
	var got *model.RunnerJob
	ctEventually(t, "context 3's pool to reconnect", func() bool {
		got, err = s.Jobs.LoadJob(ctx, 3, 1, before.ID)
		return err == nil
	})
	if got.Script != "echo before" || got.Status != model.JobDispatched {
		t.Fatalf("job after restart: %+v, %v", got, err)
	}
	if _, err := s.Registry.Authorize(ctx, 3, "12D3KooWAlice", model.RoleAdmin); err != nil {
		t.Fatalf("Authorize after restart: %v", err)
	}
	// Scripts run again on the fresh server (NOSCRIPT is handled).
	after := &model.RunnerJob{CallerID: 1, ContextID: 3, Script: "echo after", ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, after); err != nil {
		t.Fatalf("EnqueueJob after restart: %v", err)
	}
	if after.ID == before.ID {
		t.Fatal("id counter went back after restart")
	}
	key := store.JobKey(1, after.ID)
	if err := s.Jobs.SetJobStatus(ctx, 3, key, 1, model.JobStarted, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.CompleteJob(ctx, 3, key, 1, model.JobFinished, model.Hash{"result": `{"ok":"1"}`}); err != nil {
		t.Fatal(err)
	}
	j, err := s.Jobs.WaitJob(ctx, 3, key)
	if err != nil || j.Result["ok"] != "1" {
		t.Fatalf("WaitJob after restart: %+v, %v", j, err)
	}
	q := srv.Client(t, 3).LRange(ctx, "queue:sh", 0, -1).Val()
	if len(q) != 2 || q[0] != key || q[1] != store.JobKey(1, before.ID) {
		t.Fatalf("queue:sh after restart = %v", q)
	}

	// A context DB the Store had not used before the crash works too.
	if err := s.Flows.SaveFlow(ctx, &model.Flow{ID: 1, ContextID: 7}); err != nil {
		t.Fatal(err)
	}
}
