package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// sweepFullEvery: with keyspace events on, a full keyspace scan for queues
// nobody serves runs only every this many sweep ticks (5 min at the
// default 2 s): events name the queue directly, and a reconnection, after
// which some may have been lost, asks for a full scan of every context
// (lease_watch.go); without events every tick scans.
const sweepFullEvery = 150

// sweepBatch bounds the jobs rejected per queue and pass.
const sweepBatch = 1000

// requestSweep asks the sweeper to look at queue:<typ> of context id soon
// ("" = scan the context for every queue:* key).
func (r *Runner) requestSweep(id uint64, typ string) {
	r.mu.Lock()
	if r.sweepReq == nil {
		r.sweepReq = map[uint64]map[string]bool{}
	}
	if r.sweepReq[id] == nil {
		r.sweepReq[id] = map[string]bool{}
	}
	r.sweepReq[id][typ] = true
	r.mu.Unlock()
	signal(r.sweepKick)
}

// sweepLoop ends with an error the jobs left on queues of script types
// this agent does not serve, so they fail within seconds instead of
// waiting forever.
func (r *Runner) sweepLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.Sweep)
	defer t.Stop()
	for tick := 1; ; {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick++
			if !r.events.Load() || tick%sweepFullEvery == 0 {
				for _, id := range r.servedIDs() {
					r.requestSweep(id, "")
				}
			}
		case <-r.sweepKick:
		}
		for id, types := range r.takeSweepRequests() {
			r.sweepContext(ctx, id, types)
		}
	}
}

func (r *Runner) takeSweepRequests() map[uint64]map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	req := r.sweepReq
	r.sweepReq = nil
	return req
}

// sweepContext rejects the jobs of the unserved queues among types ("" in
// types = every queue of the context).
func (r *Runner) sweepContext(ctx context.Context, id uint64, types map[string]bool) {
	if types[""] {
		found, err := r.st.Queues.QueueTypes(ctx, id)
		if err != nil {
			r.log.Warn("executor: list queues", "context", id, "err", err)
			return
		}
		for _, t := range found {
			types[t] = true
		}
		delete(types, "")
	}
	for t := range types {
		if t == store.WaitForType { // the scheduler's own queue: it parks wait_for steps
			continue
		}
		if _, ok := r.types[t]; !ok && !r.external(ctx, id, t) {
			r.rejectQueue(ctx, id, t)
		}
	}
}

// rejectQueue ends every job on queue:<t> with the unknown-type error.
func (r *Runner) rejectQueue(ctx context.Context, id uint64, t string) {
	for range sweepBatch {
		cl, err := r.st.Queues.ClaimJob(ctx, id, r.cfg.RunnerID, []string{t}, r.cfg.Lease, true)
		if err != nil || cl == nil {
			if err != nil && ctx.Err() == nil {
				r.log.Warn("executor: reject queue", "context", id, "type", t, "err", err)
			}
			return
		}
		switch cl.Verdict {
		case store.VerdictRejected:
			r.log.Info("executor: job of unserved type failed", "context", id, "job", cl.JobKey, "type", t)
			r.endUnstarted(id, cl, r.unknownType(t))
		case store.VerdictStopped:
			r.endUnstarted(id, cl, reasonStopped)
		}
	}
}
