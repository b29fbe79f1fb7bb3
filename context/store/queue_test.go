package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

func qOpen(t *testing.T) (*store.Store, *testredis.Server) {
	t.Helper()
	srv := testredis.Start(t)
	s, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, srv
}

// ClaimJob takes queues in the order given, leases what it takes, marks
// runnable jobs started and dead-letters unusable ones.
func TestClaimJobVerdicts(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:1:1", "id", 1, "script", "x") // no status, no attempt, no type
	raw.HSet(ctx, "job:1:2", "id", 2, "status", "finished", "attempt", 1)
	raw.HSet(ctx, "job:1:3", "id", 3, "status", "dispatched", "attempt", 2)
	raw.Set(ctx, store.StopKey("job:1:3"), "2", 0)
	raw.LPush(ctx, "queue:sh", "job:1:1")
	raw.LPush(ctx, "queue:py", "job:1:2", "job:1:3")

	c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh", "py"}, time.Minute, false)
	if err != nil || c.Verdict != store.VerdictRun || c.JobKey != "job:1:1" || c.Attempt != 1 || c.Type != "sh" {
		t.Fatalf("claim 1: %+v %v", c, err)
	}
	h := raw.HGetAll(ctx, "job:1:1").Val()
	if h["status"] != "started" || h["attempt"] != "1" || h["script_type"] != "sh" || c.Hash["status"] != "started" {
		t.Fatalf("claimed hash %v / %v", h, c.Hash)
	}
	if c, _ = s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh", "py"}, time.Minute, false); c.Verdict != store.VerdictDead {
		t.Fatalf("claim 2 (finished job): %+v", c)
	}
	if c, _ = s.Queues.ClaimJob(ctx, 1, "r1", []string{"py"}, time.Minute, false); c.Verdict != store.VerdictStopped || c.Attempt != 2 {
		t.Fatalf("claim 3 (stopped job): %+v", c)
	}
	if c, err = s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh", "py"}, time.Minute, false); c != nil || err != nil {
		t.Fatalf("claim on empty queues: %+v %v", c, err)
	}
	if got := raw.LRange(ctx, "processing:r1", 0, -1).Val(); len(got) != 2 {
		t.Fatalf("processing list %v", got) // job 1 and job 3; the dead one was dropped
	}
	dl, err := s.Queues.DeadLetters(ctx, 1, 10)
	if err != nil || len(dl) != 1 || dl[0].Key != "job:1:2" || dl[0].Runner != "r1" {
		t.Fatalf("dead letters %+v %v", dl, err)
	}
}

// Leases are renewed by their owner, reported lost to others, taken over
// when expired and released only by their holder.
func TestLeaseLifecycle(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	j := &model.RunnerJob{CallerID: 1, ContextID: 1, ScriptType: "sh"}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, -time.Second, false) // born expired
	if err != nil || c == nil {
		t.Fatal(c, err)
	}
	lost, stopped, err := s.Queues.RenewLeases(ctx, 1, "r2", []store.Held{{JobKey: c.JobKey, Attempt: 1}}, time.Minute)
	if err != nil || len(lost) != 1 || lost[0].JobKey != c.JobKey || len(stopped) != 0 {
		t.Fatalf("renew by a stranger: %v %v %v", lost, stopped, err)
	}
	exp, err := s.Queues.ExpiredLeases(ctx, 1, time.Now(), 10)
	if err != nil || len(exp) != 1 || exp[0].Owner != "r1" || exp[0].Attempt != 1 {
		t.Fatalf("expired: %+v %v", exp, err)
	}
	taken, ok, err := s.Queues.TakeLease(ctx, 1, exp[0], "r2", time.Minute, true)
	if err != nil || !ok {
		t.Fatalf("take: %v %v", ok, err)
	}
	if _, ok, _ := s.Queues.TakeLease(ctx, 1, exp[0], "r3", time.Minute, true); ok {
		t.Fatal("a lease was taken twice")
	}
	if err := s.Queues.ReleaseLease(ctx, 1, c.Lease, "r1"); err != nil { // r1 no longer holds it
		t.Fatal(err)
	}
	if l, err := s.Queues.LeaseOf(ctx, 1, c.JobKey); err != nil || l.Owner != "r2" {
		t.Fatalf("lease after a stale release: %+v %v", l, err)
	}
	if err := s.Queues.ReleaseLease(ctx, 1, taken, "r1"); err != nil {
		t.Fatal(err)
	}
	if n := raw.ZCard(ctx, store.LeasesKey).Val() + raw.LLen(ctx, store.ProcessingKey("r1")).Val(); n != 0 {
		t.Fatalf("%d lease/processing entries left", n)
	}
}

// AppendLogs keeps max lines, then one marker line, then nothing.
func TestAppendLogsCap(t *testing.T) {
	s, _ := qOpen(t)
	ctx := context.Background()
	for _, batch := range [][]string{{"a", "b"}, {"c"}, {"d", "e"}, {"f"}} {
		if err := s.Logs.AppendLogs(ctx, 1, "job:1:1", batch, 3); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Logs.ReadLogs(ctx, 1, "job:1:1", 0)
	if err != nil || len(got) != 4 || got[2] != "c" || got[3] != store.LogCapMarker {
		t.Fatalf("logs %q %v", got, err)
	}
}

func TestParseQueueEvent(t *testing.T) {
	db, typ, ok := store.ParseQueueEvent("__keyspace@12__:queue:python")
	if !ok || db != 12 || typ != "python" {
		t.Fatal(db, typ, ok)
	}
	for _, bad := range []string{"__keyspace@x__:queue:sh", "__keyspace@1__:job:1:1", "queue:sh"} {
		if _, _, ok := store.ParseQueueEvent(bad); ok {
			t.Fatalf("%q parsed", bad)
		}
	}
}

// CompleteLeased works whichever of its two scripts the server has not
// loaded yet, and runs the completion exactly once.
func TestCompleteLeasedLoadsScripts(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	for i, preload := range []bool{false, true} {
		raw.ScriptFlush(ctx)
		j := &model.RunnerJob{CallerID: 1, ContextID: 1, ScriptType: "sh"}
		if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
		if err != nil || c == nil {
			t.Fatal(c, err)
		}
		if preload { // completeJob loaded, releaseLease not
			other := &model.RunnerJob{CallerID: 2, ContextID: 1, ScriptType: "x"}
			_ = s.Jobs.EnqueueJob(ctx, other)
			_ = s.Jobs.CompleteJob(ctx, 1, store.JobKey(2, other.ID), 0, model.JobFinished, nil)
		}
		if err := s.Queues.CompleteLeased(ctx, 1, c.Lease, "r1", model.JobFinished, model.Hash{"error": ""}); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if n := raw.LLen(ctx, store.ReplyKey(c.JobKey)).Val(); n != 1 {
			t.Fatalf("round %d: %d replies", i, n)
		}
		if n := raw.ZCard(ctx, store.LeasesKey).Val(); n != 0 {
			t.Fatalf("round %d: %d leases left", i, n)
		}
	}
}

// A lease with no owner entry (written by hand, or half-deleted) can still
// be taken over and cleaned up by a reaper.
func TestOwnerlessLeaseIsReaped(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	raw.ZAdd(ctx, store.LeasesKey, redis.Z{Score: 1, Member: "job:9:9"})
	exp, err := s.Queues.ExpiredLeases(ctx, 1, time.Now(), 10)
	if err != nil || len(exp) != 1 {
		t.Fatal(exp, err)
	}
	taken, ok, err := s.Queues.TakeLease(ctx, 1, exp[0], "r2", time.Minute, true)
	if err != nil || !ok {
		t.Fatalf("take: %v %v", ok, err)
	}
	if err := s.Queues.ReleaseLease(ctx, 1, taken, exp[0].Owner); err != nil {
		t.Fatal(err)
	}
	if n := raw.ZCard(ctx, store.LeasesKey).Val() + raw.HLen(ctx, store.LeaseOwnersKey).Val(); n != 0 {
		t.Fatalf("%d entries left", n)
	}
}
