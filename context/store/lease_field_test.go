package store_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A lease's owner lives in the job's hash; a lease taken by an agent from
// before that move keeps its owner in lease_owners, and is still renewed,
// reported expired, taken over and released.
func TestLeaseOwnerInHashAndFromBefore(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	db := srv.Client(t, 5)
	j := &model.RunnerJob{CallerID: 1, ContextID: 5, Script: "-", ScriptType: "noop", Status: model.JobDispatched}
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(1, j.ID)
	cl, err := s.Queues.ClaimJob(ctx, 5, "r1", []string{"noop"}, time.Minute, false)
	if err != nil || cl == nil {
		t.Fatalf("claim: %v %v", cl, err)
	}
	if v := db.HGet(ctx, key, store.LeaseField).Val(); v != "1 r1" {
		t.Errorf("job's lease field %q, want \"1 r1\"", v)
	}
	if db.HExists(ctx, store.LeaseOwnersKey, key).Val() {
		t.Error("a new lease also wrote lease_owners")
	}
	if got, _ := s.Jobs.LoadJobKey(ctx, 5, key); got != nil && got.Extra[store.LeaseField] != "" {
		t.Error("a loaded job carries its lease in Extra (a save would write it back)")
	}
	if err := s.Queues.CompleteLeased(ctx, 5, cl.Lease, "r1", model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	if v := db.HGet(ctx, key, store.LeaseField).Val(); v != "" {
		t.Errorf("lease field %q after the end, want empty", v)
	}
	if n := db.ZCard(ctx, store.LeasesKey).Val(); n != 0 {
		t.Errorf("%d leases left after the end", n)
	}

	// A lease as an older agent wrote it: the owner in lease_owners only.
	old := "job:1:900"
	db.HSet(ctx, old, "id", 900, "caller_id", 1, "context_id", 5, "script_type", "noop", "script", "-",
		"status", "started", "attempt", 1)
	db.ZAdd(ctx, store.LeasesKey, redis.Z{Score: float64(time.Now().Add(-time.Second).UnixMilli()), Member: old})
	db.HSet(ctx, store.LeaseOwnersKey, old, "1 r-old")
	exp, err := s.Queues.ExpiredLeases(ctx, 5, time.Now(), 10)
	if err != nil || len(exp) != 1 || exp[0].Owner != "r-old" || exp[0].Attempt != 1 {
		t.Fatalf("expired leases %+v (%v), want the old one of r-old", exp, err)
	}
	nl, ok, err := s.Queues.TakeLease(ctx, 5, exp[0], "r2", time.Minute, true)
	if err != nil || !ok {
		t.Fatalf("take over the old lease: %v %v", ok, err)
	}
	if l, err := s.Queues.LeaseOf(ctx, 5, old); err != nil || l.Owner != "r2" {
		t.Errorf("lease after the take-over %+v (%v), want r2's", l, err)
	}
	if db.HExists(ctx, store.LeaseOwnersKey, old).Val() {
		t.Error("the take-over left the old owner in lease_owners")
	}
	if err := s.Queues.ReleaseLease(ctx, 5, nl, "r2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Queues.LeaseOf(ctx, 5, old); err == nil {
		t.Error("the lease is still there after its release")
	}
}
