package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// An idle dequeue loop sends Redis almost nothing. With keyspace
// notifications on, a push wakes it (watchEvents); once a wait has ended
// by its timer rather than a wake, the loop is still and its next waits
// last until the earliest re-check of a job parked for a prerequisite
// (prereq_waiting: the claim settles those, jobs_deps.go), repairEvery
// while jobs are parked behind a concurrency key (keyed.go), and at most
// idleSafety, in case a wake was lost. A wake, a claimed job or a failed
// claim makes it busy again, polling at pollEvery.

// idleSafety is the longest wait of a still loop (and of the reaper when
// no lease exists). Wakes are lost only while a connection is down or the
// server has lost its notifications, and the lease watch wakes every loop
// after either (lease_watch.go); this pass is for what nothing foresaw.
const idleSafety = 5 * time.Minute

// idleFloor keeps a loop whose prerequisite re-check is overdue (more
// than one claim settles) from spinning.
const idleFloor = 50 * time.Millisecond

// quiet is what a context's loop knows of its idleness.
type quiet struct {
	still  bool // the last wait ended by its timer: nothing is going on
	parked bool // the last repair found jobs parked behind a concurrency key
}

// earliester reads a sorted set's earliest time (store.Queues does).
type earliester interface {
	Earliest(ctx context.Context, ctxID uint64, key string) (time.Time, bool, error)
}

// idle waits for a wake-up or quietWait; false when ctx ended.
func (r *Runner) idle(ctx context.Context, id uint64, wake <-chan struct{}, q *quiet) bool {
	t := time.NewTimer(r.quietWait(ctx, id, q))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-wake:
		q.still = false
	case <-t.C:
		q.still = true
	}
	return true
}

// quietWait is how long context id's loop may wait now: pollEvery unless
// it is still and woken by notifications.
func (r *Runner) quietWait(ctx context.Context, id uint64, q *quiet) time.Duration {
	d := r.pollEvery()
	e, ok := r.st.Queues.(earliester)
	if r.cfg.Poll > 0 || !r.events.Load() || !q.still || !ok {
		return d
	}
	at, due, err := e.Earliest(ctx, id, store.PrereqWaitingKey)
	if err != nil {
		return d
	}
	long := idleSafety
	if q.parked {
		long = min(long, r.repairEvery())
	}
	if due {
		long = min(long, max(time.Until(at), idleFloor))
	}
	return long
}
