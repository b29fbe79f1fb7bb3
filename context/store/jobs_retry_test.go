package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A job that ended error is queued again as its next attempt, its error
// and the old attempt's stop marker gone; a second retry of the same
// attempt, or a retry of a job that did not end error, is refused.
func TestRetryJobQueuesTheNextAttempt(t *testing.T) {
	s, srv := ctOpen(t)
	tmContext(t, s)
	ctx := ctCtx(t)
	j := tmJob()
	if err := s.Jobs.EnqueueJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(j.CallerID, j.ID)
	cl, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil {
		t.Fatalf("claim: %v %v", cl, err)
	}
	if _, err := s.Queues.MarkStop(ctx, 1, key); err != nil {
		t.Fatal(err)
	}
	if err := s.Queues.CompleteLeased(ctx, 1, cl.Lease, "r1", model.JobError, model.Hash{"error": "stopped"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.Jobs.RetryJob(ctx, 1, key, "sh", 1)
	if err != nil || n != 2 {
		t.Fatalf("retry: attempt %d, %v; want 2", n, err)
	}
	if _, err := s.Jobs.RetryJob(ctx, 1, key, "sh", 1); !errors.Is(err, store.ErrFenced) && !errors.Is(err, model.ErrBadTransition) {
		t.Fatalf("second retry of attempt 1: %v, want refused", err)
	}
	got, err := s.Jobs.LoadJobKey(ctx, 1, key)
	if err != nil || got.Status != model.JobDispatched || got.Error != "" || got.Attempt != 2 {
		t.Fatalf("after retry: %+v, %v", got, err)
	}
	cl, err = s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil || cl.Verdict != store.VerdictRun || cl.Attempt != 2 {
		t.Fatalf("claim of the retry: %+v, %v; want attempt 2 to run (not stopped)", cl, err)
	}
	if srv.Client(t, 1).Exists(ctx, store.StopKey(key)).Val() != 0 {
		t.Fatal("the old stop marker is still there")
	}
}
