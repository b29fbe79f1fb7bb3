package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// kqPush writes job id the raw Redis way (HSET, LPUSH queue:sh) with a
// concurrency key (none when k is "") and max_in_flight (unset when "").
func kqPush(t *testing.T, raw *redis.Client, id int, k, max string) string {
	t.Helper()
	ctx := context.Background()
	key := store.JobKey(1, uint64(id))
	f := []any{"id", id, "caller_id", 1, "context_id", 1, "script", "x", "script_type", "sh", "status", "dispatched"}
	if k != "" {
		f = append(f, model.ExtraConcurrencyKey, k)
	}
	if max != "" {
		f = append(f, model.ExtraMaxInFlight, max)
	}
	raw.HSet(ctx, key, f...)
	raw.LPush(ctx, "queue:sh", key)
	return key
}

// kqClaim claims one job for runner r and fails the test when none comes.
func kqClaim(t *testing.T, s *store.Store, r string) *store.Claim {
	t.Helper()
	c, err := s.Queues.ClaimJob(context.Background(), 1, r, []string{"sh"}, time.Minute, false)
	if err != nil || c == nil || c.Verdict != store.VerdictRun {
		t.Fatalf("claim: %+v %v", c, err)
	}
	return c
}

// A claim skips (parks) jobs whose key is full and runs the next one; the
// end of the running job (any end: finished here, error there) puts the
// oldest parked job first in its queue, whoever claims next.
func TestClaimParksFullKeyAndEndPromotes(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	a1 := kqPush(t, raw, 1, "dev-a", "")
	a2 := kqPush(t, raw, 2, "dev-a", "")
	a3 := kqPush(t, raw, 3, "dev-a", "")
	b1 := kqPush(t, raw, 4, "dev-b", "")
	free := kqPush(t, raw, 5, "", "")

	got := []string{kqClaim(t, s, "r1").JobKey, kqClaim(t, s, "r2").JobKey, kqClaim(t, s, "r1").JobKey}
	if want := []string{a1, b1, free}; !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v (a2, a3 parked behind a1)", got, want)
	}
	if c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); c != nil || err != nil {
		t.Fatalf("claim with only parked jobs left: %+v %v", c, err)
	}
	st, err := s.Queues.KeyedStateOf(ctx, 1, "dev-a")
	if err != nil || !slices.Equal(st.Running, []string{a1}) || !slices.Equal(st.Parked, []string{a2, a3}) {
		t.Fatalf("dev-a state %+v %v", st, err)
	}
	if n := raw.LLen(ctx, "processing:r1").Val(); n != 2 {
		t.Fatalf("processing:r1 holds %d jobs, want 2 (a1 and the free job; parked ones left it)", n)
	}
	if h := raw.HGet(ctx, a2, "status").Val(); h != "dispatched" {
		t.Fatalf("parked job status %q, want dispatched", h)
	}

	// a1 fails: a2 (not a3) comes next, for any runner.
	c1 := store.Lease{JobKey: a1, Owner: "r1", Attempt: 1}
	if err := s.Queues.CompleteLeased(ctx, 1, c1, "r1", model.JobError, model.Hash{"error": "boom"}); err != nil {
		t.Fatal(err)
	}
	if c := kqClaim(t, s, "r2"); c.JobKey != a2 {
		t.Fatalf("after a1 ended, claimed %s, want a2", c.JobKey)
	}
	if err := s.Queues.CompleteLeased(ctx, 1, store.Lease{JobKey: a2, Owner: "r2", Attempt: 1}, "r2",
		model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	if c := kqClaim(t, s, "r1"); c.JobKey != a3 {
		t.Fatalf("after a2 ended, claimed %s, want a3", c.JobKey)
	}
}

// max_in_flight 2 lets two jobs of a key hold places at once, not three.
func TestClaimMaxInFlightTwo(t *testing.T) {
	s, srv := qOpen(t)
	raw := srv.Client(t, 1)
	for i := 1; i <= 3; i++ {
		kqPush(t, raw, i, "k", "2")
	}
	kqClaim(t, s, "r1")
	kqClaim(t, s, "r1")
	if c, err := s.Queues.ClaimJob(context.Background(), 1, "r1", []string{"sh"}, time.Minute, false); c != nil || err != nil {
		t.Fatalf("third claim of a key with max_in_flight 2: %+v %v", c, err)
	}
}

// A job that ended without giving its place back (a plain client's HSET)
// holds the key no longer: the repair pass promotes the parked job.
func TestKeyedRepairFreesPlaceOfJobEndedByHand(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	a1 := kqPush(t, raw, 1, "k", "")
	a2 := kqPush(t, raw, 2, "k", "")
	kqClaim(t, s, "r1")
	if c, _ := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); c != nil {
		t.Fatalf("a2 should be parked, claimed %+v", c)
	}
	raw.HSet(ctx, a1, "status", "finished") // an external worker's end
	if n, err := s.Queues.KeyedRepair(ctx, 1); err != nil || n != 1 {
		t.Fatalf("repair looked at %d keys, %v", n, err)
	}
	if c := kqClaim(t, s, "r1"); c.JobKey != a2 {
		t.Fatalf("after repair claimed %s, want a2", c.JobKey)
	}
	if n, err := s.Queues.KeyedRepair(ctx, 1); err != nil || n != 0 {
		t.Fatalf("repair with nothing parked looked at %d keys, %v", n, err)
	}
}

// A parked job that is stopped does not wait for its turn: the next end of
// its key sends it to its queue, and its claim ends it stopped.
func TestParkedJobStoppedEndsOnPromotion(t *testing.T) {
	s, srv := qOpen(t)
	ctx := context.Background()
	raw := srv.Client(t, 1)
	a1 := kqPush(t, raw, 1, "k", "")
	a2 := kqPush(t, raw, 2, "k", "")
	a3 := kqPush(t, raw, 3, "k", "")
	kqClaim(t, s, "r1")
	if c, _ := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); c != nil {
		t.Fatalf("a2, a3 should be parked, claimed %+v", c)
	}
	if _, err := s.Queues.MarkStop(ctx, 1, a2); err != nil {
		t.Fatal(err)
	}
	if err := s.Queues.CompleteLeased(ctx, 1, store.Lease{JobKey: a1, Owner: "r1", Attempt: 1}, "r1",
		model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || c == nil || c.JobKey != a2 || c.Verdict != store.VerdictStopped {
		t.Fatalf("claim after a1 ended: %+v %v, want a2 stopped", c, err)
	}
	if c := kqClaim(t, s, "r1"); c.JobKey != a3 {
		t.Fatalf("then claimed %s, want a3 (a2 took no place)", c.JobKey)
	}
}
