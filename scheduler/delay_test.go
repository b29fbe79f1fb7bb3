package scheduler_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A flow job with a delay is dispatched when ready with run_at = then +
// delay; the runner's claim holds it back in the timers, and it runs when
// the timers fire it.
func TestFlowJobDelayWaitsInTheTimers(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	before := time.Now()
	fl := e.run(t, s, "jobs:\n  later: {type: sh, script: 'true', delay: 1h}\n")
	key := store.JobKey(fl.CallerID, fl.Jobs[0])
	db := e.srv.Client(t, ctxID)
	eventually(t, "the delayed job on its queue", func() bool {
		return db.LLen(e.ctx, store.QueueKey("sh")).Val() == 1
	})
	after := time.Now()
	at, ok := store.ParseRunAt(db.HGet(e.ctx, key, store.RunAtField).Val())
	if !ok || at.Before(before.Add(time.Hour).Truncate(time.Second)) || at.After(after.Add(time.Hour)) {
		t.Fatalf("run_at %v, want dispatch time + 1h (%v .. %v)", at, before.Add(time.Hour), after.Add(time.Hour))
	}
	if cl, err := e.st.Queues.ClaimJob(e.ctx, ctxID, "r", []string{"sh"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("claim before its time: %+v, %v", cl, err)
	}
	if n, _, err := e.st.Timing.FireDueTimers(e.ctx, ctxID, at); err != nil || n != 1 {
		t.Fatalf("fire at run_at: %d, %v", n, err)
	}
	cl, err := e.st.Queues.ClaimJob(e.ctx, ctxID, "r", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != key {
		t.Fatalf("claim when due: %+v, %v; want %s", cl, err, key)
	}
}

// `sleep: 1h` is a step that only waits: a noop job held in the timers
// for an hour, after which the flow goes on.
func TestFlowSleepStep(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	fl := e.run(t, s, "jobs:\n  nap: {sleep: 1h}\n  after: {type: sh, script: 'true', needs: nap}\n")
	nap := store.JobKey(fl.CallerID, fl.Jobs[0])
	db := e.srv.Client(t, ctxID)
	eventually(t, "the sleep step on its queue", func() bool {
		return db.LLen(e.ctx, store.QueueKey("noop")).Val() == 1
	})
	if cl, err := e.st.Queues.ClaimJob(e.ctx, ctxID, "r", []string{"noop"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("claim of the sleep step before its hour: %+v, %v", cl, err)
	}
	at, _ := store.ParseRunAt(db.HGet(e.ctx, nap, store.RunAtField).Val())
	if n, _, err := e.st.Timing.FireDueTimers(e.ctx, ctxID, at); err != nil || n != 1 {
		t.Fatalf("fire: %d, %v", n, err)
	}
	cl, err := e.st.Queues.ClaimJob(e.ctx, ctxID, "r", []string{"noop"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != nap {
		t.Fatalf("claim after its hour: %+v, %v", cl, err)
	}
	if err := e.st.Queues.CompleteLeased(e.ctx, ctxID, cl.Lease, "r", model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the next step dispatched", func() bool {
		return db.LLen(e.ctx, store.QueueKey("sh")).Val() == 1
	})
}
