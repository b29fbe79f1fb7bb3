package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// The reaper waits for the earliest lease expiry of the served contexts,
// not a fixed tick: one pub/sub connection (store.KeyWatch) tells it when
// a lease is written while it knows of none, so an idle runner's reaper
// reads Redis only every idleSafety. The same connection says when
// notifications may have been lost (a reconnection, a restarted server):
// every dequeue loop then looks at its queues again.

// watcher is what the store offers for it (store.Queues does).
type watcher interface {
	WatchKeys(ctx context.Context, classes string, keys, events []string) (*store.KeyWatch, error)
	earliester
}

// leaseWatch returns a watch of the leases of every DB and the channel a
// lease write (or a possible loss) signals; nil when the server publishes
// no notifications (the reaper then ticks).
func (r *Runner) leaseWatch(ctx context.Context) (*store.KeyWatch, <-chan struct{}) {
	kw, ok := r.st.Queues.(watcher)
	if !ok {
		return nil, nil
	}
	w, err := kw.WatchKeys(ctx, "z", []string{store.LeasesKey}, store.SortedSetAddEvents)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Info("executor: the reaper ticks: no keyspace notifications of leases", "err", err)
		}
		return nil, nil
	}
	written := make(chan struct{}, 1)
	w.OnWrite(store.LeasesKey, func(db uint64) {
		signal(written)
		if db == store.AnyDB {
			r.wakeAll() // keyed_limits.go
			for _, id := range r.servedIDs() {
				r.requestSweep(id, "") // a push onto an unserved queue may have gone unseen
			}
		}
	})
	return w, written
}

// nextReap is how long the reaper may wait after a pass: until the
// earliest lease of the served contexts expires (period at least), or
// idleSafety when there is none; known says some lease exists.
func (r *Runner) nextReap(ctx context.Context, period time.Duration) (d time.Duration, known bool) {
	e := r.st.Queues.(earliester)
	d = idleSafety
	for _, id := range r.servedIDs() {
		at, ok, err := e.Earliest(ctx, id, store.LeasesKey)
		if err != nil {
			return period, true
		}
		if ok {
			known = true
			d = min(d, time.Until(at))
		}
	}
	return max(d, period), known
}
