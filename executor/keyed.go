package executor

import (
	"context"
	"time"
)

// Ordering per concurrency key is the store's (the claim parks a job
// whose key is full, every end of a job gives its place back and promotes
// the next parked one: context/store/queue_keyed_lua.go). The runner only
// repairs: a job ended by a plain client, or deleted, gave no place back,
// and jobs parked behind it would wait for ever.

// repairEvery is how often a context's loop looks for such places.
func (r *Runner) repairEvery() time.Duration {
	return min(max(r.cfg.Heartbeat, 100*time.Millisecond), 5*time.Second)
}

// repairKeys runs store.KeyedRepair for context id when the last run (at
// *last) is repairEvery old, and notes in *parked whether it found jobs
// parked behind a key (an idle loop then looks again at repairEvery).
func (r *Runner) repairKeys(ctx context.Context, id uint64, last *time.Time, parked *bool) {
	now := time.Now()
	if now.Sub(*last) < r.repairEvery() {
		return
	}
	*last = now
	n, err := r.st.Queues.KeyedRepair(ctx, id)
	if err != nil && ctx.Err() == nil {
		r.log.Warn("executor: repair concurrency keys", "context", id, "err", err)
	}
	*parked = n > 0 || err != nil
}
