package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A job in flight is marked unreachable once and keeps its first time; an
// ended job, another attempt's or a missing one is not marked; clearing
// removes the mark and leaves the status alone.
func TestMarkUnreachableKeepsTheStatus(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 3
	key := ctDispatched(t, s, ctxID, 1, 1)
	first := time.Unix(1000, 0)
	if at, ok, err := s.Jobs.MarkUnreachable(ctx, ctxID, key, 1, first); err != nil || !ok || !at.Equal(first) {
		t.Fatalf("mark = %v %v %v, want %v", at, ok, err, first)
	}
	if at, ok, _ := s.Jobs.MarkUnreachable(ctx, ctxID, key, 1, first.Add(time.Hour)); !ok || !at.Equal(first) {
		t.Fatalf("marked again: %v %v, want the first time kept", at, ok)
	}
	j, err := s.Jobs.LoadJobKey(ctx, ctxID, key)
	if err != nil {
		t.Fatal(err)
	}
	if since, ok := j.Unreachable(); !ok || !since.Equal(first) || j.Status != model.JobDispatched {
		t.Fatalf("job %s unreachable=%v since %v; want dispatched, unreachable since %v", j.Status, ok, since, first)
	}
	if _, ok, _ := s.Jobs.MarkUnreachable(ctx, ctxID, key, 2, first); ok {
		t.Error("marked for another attempt")
	}
	if _, ok, _ := s.Jobs.MarkUnreachable(ctx, ctxID, store.JobKey(1, 99), 0, first); ok {
		t.Error("marked a missing job")
	}
	if err := s.Jobs.ClearUnreachable(ctx, ctxID, key, 2); err != nil { // another attempt's return
		t.Fatal(err)
	}
	if j, _ = s.Jobs.LoadJobKey(ctx, ctxID, key); j.Extra[model.ExtraRunnerState] != model.RunnerUnreachable {
		t.Fatal("another attempt's return cleared the mark")
	}
	if err := s.Jobs.ClearUnreachable(ctx, ctxID, key, 1); err != nil {
		t.Fatal(err)
	}
	if j, _ = s.Jobs.LoadJobKey(ctx, ctxID, key); j.Extra[model.ExtraRunnerState] != "" || j.Extra[model.ExtraUnreachableSince] != "" {
		t.Fatalf("after clearing: %v", j.Extra)
	}
	if err := s.Jobs.CompleteJob(ctx, ctxID, key, 1, model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Jobs.MarkUnreachable(ctx, ctxID, key, 0, first); ok {
		t.Error("marked an ended job")
	}
}

// A late result is kept only from the runner and attempt the job was given
// up on; anything else writes nothing.
func TestRecordLateResultOnlyFromTheLostRunner(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 3
	key := ctDispatched(t, s, ctxID, 1, 1)
	late := &model.LateResult{From: "peerA", Attempt: 1, Status: model.JobFinished, Result: map[string]string{"x": "1"}, At: 5}
	if ok, _, err := s.Jobs.RecordLateResult(ctx, ctxID, key, late); err != nil || ok {
		t.Fatalf("kept from a job never given up on: %v %v", ok, err)
	}
	if err := s.Jobs.CompleteJob(ctx, ctxID, key, 1, model.JobError, model.LostRunnerFields("peerA", 1, "lost")); err != nil {
		t.Fatal(err)
	}
	for _, other := range []*model.LateResult{{From: "peerB", Attempt: 1}, {From: "peerA", Attempt: 2}} {
		if ok, _, _ := s.Jobs.RecordLateResult(ctx, ctxID, key, other); ok {
			t.Errorf("kept %+v", other)
		}
	}
	if ok, dup, err := s.Jobs.RecordLateResult(ctx, ctxID, key, late); err != nil || !ok || dup {
		t.Fatalf("not kept from the lost runner: %v %v %v", ok, dup, err)
	}
	resent := *late
	resent.Result = map[string]string{"x": "2"}
	if ok, dup, err := s.Jobs.RecordLateResult(ctx, ctxID, key, &resent); err != nil || !ok || !dup {
		t.Fatalf("a resent late result: kept %v duplicate %v %v; want kept as a duplicate", ok, dup, err)
	}
	j, err := s.Jobs.LoadJobKey(ctx, ctxID, key)
	if err != nil {
		t.Fatal(err)
	}
	if got := j.LateResult(); got == nil || got.Result["x"] != "1" || j.Status != model.JobError || j.Error != "lost" {
		t.Fatalf("job %s %q late %+v", j.Status, j.Error, got)
	}
}

// OutboxResendNow makes a peer's outbox messages due now, their backoff
// started again from their sends, and leaves others' alone.
func TestOutboxResendNowOnlyThatPeers(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 3
	db := srv.Client(t, ctxID)
	later := float64(time.Now().Add(time.Hour).UnixMilli())
	for k, dst := range map[string]string{"message:1:1": "peerA", "message:1:2": "peerB", "message:1:3": "peerA"} {
		if err := db.HSet(ctx, k, "dst", dst, model.ExtraSends, "4").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.ZAdd(ctx, store.OutboxKey, redis.Z{Score: later, Member: k}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	keys, err := s.Bus.OutboxResendNow(ctx, ctxID, "peerA", now, 100)
	slices.Sort(keys)
	if err != nil || !slices.Equal(keys, []string{"message:1:1", "message:1:3"}) {
		t.Fatalf("resent %v %v, want peerA's two", keys, err)
	}
	for k, want := range map[string]float64{"message:1:1": float64(now.UnixMilli()), "message:1:2": later, "message:1:3": float64(now.UnixMilli())} {
		if got := db.ZScore(ctx, store.OutboxKey, k).Val(); got != want {
			t.Errorf("%s due %v, want %v", k, got, want)
		}
	}
	if from := db.HGet(ctx, "message:1:1", model.ExtraBackoffFrom).Val(); from != "4" {
		t.Errorf("backoff_from = %q, want 4", from)
	}
	if db.HExists(ctx, "message:1:2", model.ExtraBackoffFrom).Val() {
		t.Error("another peer's message got backoff_from")
	}
}
