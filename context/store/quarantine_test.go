package store_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// The claim of an attempt that follows N failed ones in a row ends the job,
// quarantined: error, in the dead letters (class failures, counted), its
// waiters woken, no lease left. A retry then counts afresh and runs; the
// same in the claim that rides a completion (CompleteAndClaim).
func TestClaimQuarantinesAfterFailuresInARow(t *testing.T) {
	s, srv := ctOpen(t)
	s.SetQuarantineAfter(2)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:1:1", "id", 1, "script", "x", "script_type", "sh", "status", "dispatched",
		"attempt", 3, "error", "attempt 2: exit status 3 (retrying)")
	raw.LPush(ctx, "queue:sh", "job:1:1")
	c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || c.Verdict != store.VerdictInvalid {
		t.Fatalf("claim: %+v, %v; want the job refused (quarantined)", c, err)
	}
	j, err := s.Jobs.LoadJobKey(ctx, 1, "job:1:1")
	if err != nil || j.Status != "error" || j.QuarantineBase() != 3 || j.Extra["quarantined"] == "" {
		t.Fatalf("job after the claim: %+v, %v; want error, quarantined, base 3", j, err)
	}
	if got := raw.LRange(ctx, store.ReplyKey("job:1:1"), 0, -1).Val(); len(got) != 1 || got[0] != "error" {
		t.Fatalf("reply list %v; want [error] (waiters woken)", got)
	}
	if n := raw.ZCard(ctx, store.LeasesKey).Val() + raw.LLen(ctx, store.ProcessingKey("r1")).Val(); n != 0 {
		t.Fatalf("%d lease or processing entries left; want none", n)
	}
	dl, _ := s.Queues.DeadLetters(ctx, 1, 10)
	counts, _ := s.Bus.DeadLetterCounts(ctx, 1)
	if len(dl) != 1 || dl[0].Class != store.DeadFailures || counts[store.DeadFailures] != 1 {
		t.Fatalf("dead letters %+v, counts %v; want one of class failures, counted", dl, counts)
	}
	if _, err := s.Jobs.RetryJob(ctx, 1, "job:1:1", "sh", 3); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil || c.Verdict != store.VerdictRun || c.Attempt != 4 {
		t.Fatalf("claim after the retry: %+v, %v; want attempt 4 run", c, err)
	}
}

// A queued job hash whose idempotency key another job used ends error with
// duplicate_of and is not run; the job holding the key runs, also again.
func TestClaimRefusesRawDuplicateKey(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	for _, k := range []string{"job:1:1", "job:1:2"} {
		raw.HSet(ctx, k, "script", "x", "script_type", "sh", "status", "dispatched", "idempotency_key", "K")
		raw.LPush(ctx, "queue:sh", k)
	}
	first, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || first.Verdict != store.VerdictRun || first.JobKey != "job:1:1" {
		t.Fatalf("first claim %+v, %v; want job:1:1 run", first, err)
	}
	second, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || second.Verdict != store.VerdictInvalid || second.JobKey != "job:1:2" {
		t.Fatalf("second claim %+v, %v; want job:1:2 refused", second, err)
	}
	j, _ := s.Jobs.LoadJobKey(ctx, 1, "job:1:2")
	if j.Status != "error" || j.DuplicateOf() != "job:1:1" {
		t.Fatalf("duplicate %+v; want error, duplicate_of job:1:1", j)
	}
	if dl, _ := s.Queues.DeadLetters(ctx, 1, 10); len(dl) != 0 {
		t.Fatalf("dead letters %+v; a duplicate is none", dl)
	}
}
