package store_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// CompleteSentJob ends a sent job and settles its message in one step: the
// message is processed and off the outbox and awaiting_result; an end that
// is refused (a duplicate, an old attempt) leaves the message as it was; a
// message that may not become processed (error, or processed already)
// keeps its status but leaves both sets; a watch on the job still gets the
// ended job.
func TestCompleteSentJobSettlesItsMessage(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 3
	db := srv.Client(t, ctxID)
	sent := func(id uint64, msgStatus model.MessageStatus) (jobKey, msgKey string) {
		t.Helper()
		jobKey, msgKey = ctDispatched(t, s, ctxID, id, 1), store.MessageKey(1, id)
		if err := db.HSet(ctx, msgKey, "status", string(msgStatus), "message_type", "job").Err(); err != nil {
			t.Fatal(err)
		}
		z := redis.Z{Score: float64(time.Now().Add(time.Minute).UnixMilli()), Member: msgKey}
		if err := db.ZAdd(ctx, store.OutboxKey, z).Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.ZAdd(ctx, store.AwaitingKey, z).Err(); err != nil {
			t.Fatal(err)
		}
		return jobKey, msgKey
	}
	check := func(msgKey string, wantStatus model.MessageStatus, wantQueued bool) {
		t.Helper()
		if st := db.HGet(ctx, msgKey, "status").Val(); st != string(wantStatus) {
			t.Errorf("%s status %q, want %q", msgKey, st, wantStatus)
		}
		for _, set := range []string{store.OutboxKey, store.AwaitingKey} {
			err := db.ZScore(ctx, set, msgKey).Err()
			if queued := err == nil; queued != wantQueued {
				t.Errorf("%s in %s: %v, want %v (%v)", msgKey, set, queued, wantQueued, err)
			}
		}
	}

	// A result for a watched job: ended, settled, handed to the watch.
	job, msg := sent(1, model.MsgAcknowledged)
	w := s.Jobs.WatchEnd(ctxID, job)
	defer w.Close()
	err := s.Jobs.CompleteSentJob(ctx, ctxID, job, 1, model.JobFinished, model.Hash{"ran_on": "peer"},
		[]string{"done"}, 50, msg)
	if err != nil {
		t.Fatal(err)
	}
	check(msg, model.MsgProcessed, false)
	got, err := w.Wait(ctx)
	if err != nil || got.Status != model.JobFinished || got.Extra["ran_on"] != "peer" {
		t.Fatalf("watch got %+v, %v", got, err)
	}

	// A duplicate end, and an end for an old attempt, settle nothing.
	job2, msg2 := sent(2, model.MsgDispatched)
	if err := db.HSet(ctx, job2, "attempt", "2").Err(); err != nil {
		t.Fatal(err)
	}
	err = s.Jobs.CompleteSentJob(ctx, ctxID, job2, 1, model.JobFinished, nil, nil, 0, msg2)
	if !errors.Is(err, store.ErrFenced) {
		t.Fatalf("an end for attempt 1 of a job at attempt 2: %v, want fenced", err)
	}
	check(msg2, model.MsgDispatched, true)
	if err := s.Jobs.CompleteSentJob(ctx, ctxID, job, 1, model.JobError, nil, nil, 0, msg2); !errors.Is(err, model.ErrBadTransition) {
		t.Fatalf("a second end: %v, want a refused transition", err)
	}
	check(msg2, model.MsgDispatched, true)

	// A message that already failed keeps its status (a late result still
	// ends the job) but is no longer resent or awaited.
	job3, msg3 := sent(3, model.MsgError)
	if err := s.Jobs.CompleteSentJob(ctx, ctxID, job3, 1, model.JobFinished, nil, []string{"late"}, 50, msg3); err != nil {
		t.Fatal(err)
	}
	check(msg3, model.MsgError, false)
	if st := db.HGet(ctx, job3, "status").Val(); st != string(model.JobFinished) {
		t.Errorf("job status %q, want finished", st)
	}

	// A message processed already stays processed.
	job4, msg4 := sent(4, model.MsgProcessed)
	if err := s.Jobs.CompleteSentJob(ctx, ctxID, job4, 1, model.JobError, nil, nil, 0, msg4); err != nil {
		t.Fatal(err)
	}
	check(msg4, model.MsgProcessed, false)
}
