package executor

import (
	"context"
	"sync"
	"time"
)

// Refresh serves contexts that appeared since the last periodic refresh
// (the node calls it when a context is created): now, or, when a refresh
// is under way, by that refresh, which lists the contexts again before it
// ends; then Refresh returns at once (see refreshes).
func (r *Runner) Refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.refreshContexts(ctx); err != nil {
		r.log.Debug("executor: refresh", "err", err)
	}
}

// refreshes makes the contexts' refreshes take turns. A refresh lists the
// contexts, then starts and stops loops to match; two at once (the
// periodic one and one asked for because a context was just created)
// could apply in the wrong order, the older listing last, and stop
// serving the new context until the next period. So only one runs at a
// time; a refresh asked for while one is under way is folded into it: the
// running one lists again when it is done, and the caller returns at once.
type refreshes struct {
	mu      sync.Mutex
	running bool // guarded by mu
	again   bool // a refresh was asked for while one ran; guarded by mu
}

// refreshContexts runs refreshOnce, or has the refresh under way run it
// once more; see refreshes.
func (r *Runner) refreshContexts(ctx context.Context) error {
	f := &r.refreshes
	f.mu.Lock()
	if f.running {
		f.again = true
		f.mu.Unlock()
		return nil
	}
	f.running = true
	f.mu.Unlock()
	for {
		err := r.refreshOnce(ctx)
		f.mu.Lock()
		again := f.again && ctx.Err() == nil
		f.running, f.again = again, false
		f.mu.Unlock()
		if !again {
			return err
		}
	}
}

// eventsRecheck is how often the refresh loop re-checks that keyspace
// notifications are on while they are: the lease watch's connection turns
// them back on as soon as it reconnects to a restarted server
// (lease_watch.go), so this is a safety pass; while they are off, every
// refresh tries again.
const eventsRecheck = time.Minute

// eventsDue reports whether the refresh loop should re-check the keyspace
// notifications now (last checked at *last, which it moves).
func (r *Runner) eventsDue(last *time.Time) bool {
	if r.events.Load() && time.Since(*last) < eventsRecheck {
		return false
	}
	*last = time.Now()
	return true
}
