package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// heartbeat renews the leases of the attempts in hand every Heartbeat. An
// attempt whose lease was taken over (the reaper gave the job to another
// runner) is killed: its result would be fenced out anyway. A stop marker
// found here kills the attempt too (a backstop for a missed stop event).
func (r *Runner) heartbeat(ctx context.Context) {
	t := time.NewTicker(r.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.renewAll(ctx)
		}
	}
}

func (r *Runner) renewAll(ctx context.Context) {
	for id, held := range r.heldLeases() {
		lost, stopped, err := r.st.Queues.RenewLeases(ctx, id, r.cfg.RunnerID, held, r.cfg.Lease)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("executor: renew leases", "context", id, "err", err)
			}
			continue
		}
		for _, h := range lost {
			r.cancelWhere(func(k runKey) bool {
				return k.ctxID == id && k.key == h.JobKey && k.attempt == h.Attempt
			}, errLeaseLost)
		}
		for _, key := range stopped {
			r.cancelJob(id, key, errStopped)
		}
	}
}

// heldLeases groups the running attempts of contexts by context.
func (r *Runner) heldLeases() map[uint64][]store.Held {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[uint64][]store.Held{}
	for k := range r.running {
		if k.ctxID != 0 {
			out[k.ctxID] = append(out[k.ctxID], store.Held{JobKey: k.key, Attempt: k.attempt})
		}
	}
	return out
}
