package store_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// timelineEvents is a job's timeline as event@attempt, and its entries.
func timelineEvents(t *testing.T, s *store.Store, ctxID uint64, key string) ([]string, []store.TimelineEntry) {
	t.Helper()
	tl, err := s.Jobs.Timeline(ctCtx(t), ctxID, key)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tl {
		got = append(got, fmt.Sprintf("%s@%d", e.Event, e.Attempt))
	}
	return got, tl
}

// A requeued attempt ends on the timeline (error, with the error given)
// before the next one's retry; one whose end EndAttempt wrote when it
// failed gets no second end; EndAttempt is fenced on the started attempt.
func TestRequeueEndsTheAttemptOnTheTimeline(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 1
	j := &model.RunnerJob{CallerID: 1, ContextID: ctxID, ScriptType: "sh", Script: "true", Retries: 2}
	if err := s.Jobs.CreateQueuedJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	key := store.JobKey(1, j.ID)
	claim := func(want int64) {
		t.Helper()
		c, err := s.Queues.ClaimJob(ctx, ctxID, "r1", []string{"sh"}, time.Minute, false)
		if err != nil || c == nil || c.Verdict != store.VerdictRun || c.Attempt != want {
			t.Fatalf("claim: %+v, %v; want attempt %d run", c, err, want)
		}
	}
	claim(1)
	if _, err := s.Jobs.RequeueJob(ctx, ctxID, key, "sh", 1, model.Hash{"error": "attempt 1: exit status 7 (retrying)"}); err != nil {
		t.Fatal(err)
	}
	claim(2)
	if ok, err := s.Jobs.EndAttempt(ctx, ctxID, key, 1, "stale"); err != nil || ok {
		t.Fatalf("EndAttempt of a superseded attempt: %v, %v; want false", ok, err)
	}
	if ok, err := s.Jobs.EndAttempt(ctx, ctxID, key, 2, "attempt 2: exit status 7 (retrying)"); err != nil || !ok {
		t.Fatalf("EndAttempt: %v, %v; want true", ok, err)
	}
	if _, err := s.Jobs.RequeueJob(ctx, ctxID, key, "sh", 2, model.Hash{"error": "attempt 2: exit status 7 (retrying)"}); err != nil {
		t.Fatal(err)
	}
	claim(3)
	if err := s.Jobs.CompleteJob(ctx, ctxID, key, 3, model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	got, tl := timelineEvents(t, s, ctxID, key)
	want := []string{"created@1", "started@1", "error@1", "retry@2", "started@2", "error@2", "retry@3", "started@3", "finished@3"}
	if !slices.Equal(got, want) {
		t.Fatalf("timeline = %v, want %v", got, want)
	}
	if tl[2].Detail != "attempt 1: exit status 7 (retrying)" || tl[5].Detail != "attempt 2: exit status 7 (retrying)" {
		t.Errorf("ends %+v, %+v; want the attempts' errors", tl[2], tl[5])
	}
}

// The claim that quarantines a job writes "quarantined" (why) and the
// attempt's end on its timeline; the one that refuses a duplicate, the end.
func TestQuarantineIsOnTheTimeline(t *testing.T) {
	s, srv := ctOpen(t)
	s.SetQuarantineAfter(2)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:1:1", "id", 1, "script", "x", "script_type", "sh", "status", "dispatched",
		"attempt", 3, "error", "attempt 2: exit status 3 (retrying)")
	raw.LPush(ctx, "queue:sh", "job:1:1")
	if c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil || c.Verdict != store.VerdictInvalid {
		t.Fatalf("claim: %+v, %v; want the job quarantined", c, err)
	}
	got, tl := timelineEvents(t, s, 1, "job:1:1")
	if !slices.Equal(got, []string{"started@3", "quarantined@3", "error@3"}) {
		t.Fatalf("timeline = %v; want started, quarantined, error at attempt 3", got)
	}
	if d := tl[1].Detail; d == "" || d != tl[2].Detail || d[:12] != "quarantined:" {
		t.Errorf("entries %+v; want why on the quarantine and the end", tl)
	}

	for _, k := range []string{"job:1:5", "job:1:6"} {
		raw.HSet(ctx, k, "script", "x", "script_type", "sh", "status", "dispatched", "idempotency_key", "K")
		raw.LPush(ctx, "queue:sh", k)
	}
	for range 2 {
		if _, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := timelineEvents(t, s, 1, "job:1:6"); !slices.Equal(got, []string{"started@1", "error@1"}) {
		t.Fatalf("duplicate's timeline = %v; want started, error", got)
	}
}
