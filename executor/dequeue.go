package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// serveContext is the dequeue loop of one context. Waiting for work costs
// no Redis connection: the loop claims with a non-blocking script (one
// round trip over every served queue) and, when all are empty, sleeps until
// a keyspace notification for one of the context's queues wakes it, or
// for the poll interval (much longer once it is still: idle.go). So N contexts cost N goroutines, not N×types
// blocked connections. Keyspace events arrive on the runner's single
// pub/sub connection (see watchEvents).
func (r *Runner) serveContext(ctx context.Context, id uint64, sc *servedContext) {
	r.reclaimOwn(ctx, id)
	r.requestSweep(id, "")
	var repaired time.Time // last look at parked jobs of concurrency keys (keyed.go)
	var q quiet            // how long it may wait (idle.go)
	for {
		r.repairKeys(ctx, id, &repaired, &q.parked)
		if !r.acquireFor(ctx, sc) {
			return
		}
		cl, err := r.claimHinted(ctx, id, sc)
		if err != nil || cl == nil {
			r.releaseSlot()
			if err != nil && ctx.Err() == nil {
				r.log.Warn("executor: claim", "context", id, "err", err)
			}
			if err != nil {
				q.still = false
			}
			if !r.idle(ctx, id, sc.wake, &q) {
				return
			}
			continue
		}
		q.still = false
		left := cl.Left
		r.dispatch(id, cl)
		if left == 0 && !r.idle(ctx, id, sc.wake, &q) { // a push meanwhile has woken us already
			return
		}
	}
}

// claimHinted runs one claim of sc's queues, in turn, over those its
// hints say may hold a job (all of them while keyspace notifications are
// off), and records what it found (queue_hints.go).
func (r *Runner) claimHinted(ctx context.Context, id uint64, sc *servedContext) (*store.Claim, error) {
	order := sc.order(r.served)
	if !r.events.Load() {
		return r.claim(ctx, id, order)
	}
	sent := time.Now()
	tried, gens := sc.hints.worth(order, sent)
	var asked []string
	cl, err := r.claimLimited(id, tried, func(types []string) (*store.Claim, error) {
		asked = types
		return r.claimOnce(ctx, id, types)
	})
	switch {
	case err != nil:
		sc.hints.forget()
	case cl == nil:
		sc.hints.found(asked, gens, sent, "", 0)
	default:
		sc.hints.found(asked, gens, sent, cl.Type, cl.Left)
	}
	return cl, err
}

// claim runs one claim. A claim under way when Shutdown begins is allowed
// to complete, so a job it took is run rather than left in the processing
// list as if this runner had crashed.
func (r *Runner) claim(ctx context.Context, id uint64, types []string) (*store.Claim, error) {
	return r.claimLimited(id, types, func(types []string) (*store.Claim, error) { // keyed_limits.go
		return r.claimOnce(ctx, id, types)
	})
}

// claimOnce sends one claim over types.
func (r *Runner) claimOnce(ctx context.Context, id uint64, types []string) (*store.Claim, error) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
	defer cancel()
	return r.st.Queues.ClaimJob(cctx, id, r.cfg.RunnerID, types, r.cfg.Lease, false)
}

// dispatch hands a claimed job to its own goroutine. A VerdictRun job keeps
// the slot taken for it; the others need none.
func (r *Runner) dispatch(id uint64, cl *store.Claim) {
	switch cl.Verdict {
	case store.VerdictRun:
		counted := r.counted(id, cl)
		r.jobWG.Add(1)
		go func() {
			defer r.jobWG.Done()
			defer counted()
			r.runClaimed(id, cl)
		}()
	case store.VerdictDead, store.VerdictInvalid: // the claim has dead-lettered (and, invalid, ended) it
		r.releaseSlot()
		r.log.Warn("executor: unusable job moved to dead_letter", "context", id, "job", cl.JobKey,
			"reason", cl.Reason, "ended", cl.Verdict == store.VerdictInvalid)
	default:
		r.releaseSlot()
		r.jobWG.Add(1)
		go func() {
			defer r.jobWG.Done()
			r.endUnstarted(id, cl, reasonStopped)
		}()
	}
}

// order returns the served types starting one further each call, so a
// busy queue cannot starve the others.
func (sc *servedContext) order(served []string) []string {
	n := len(served)
	start := int((sc.rot.Add(1) - 1) % uint32(n))
	out := make([]string, n)
	for k := range n {
		out[k] = served[(start+k)%n]
	}
	return out
}

func (r *Runner) pollEvery() time.Duration {
	switch {
	case r.cfg.Poll > 0:
		return r.cfg.Poll
	case r.events.Load():
		return time.Second
	default:
		return 200 * time.Millisecond
	}
}

// acquireFor takes a slot for sc's loop (nil: the hero loop), counting it
// as waiting meanwhile, so that finished jobs free their slots instead of
// chaining (see chainable); false when ctx ended first.
func (r *Runner) acquireFor(ctx context.Context, sc *servedContext) bool {
	r.waiting.Add(1)
	defer r.waiting.Add(-1)
	if sc != nil {
		sc.waiting.Add(1)
		defer sc.waiting.Add(-1)
	}
	return r.acquire(ctx)
}

// acquire takes a slot; false when ctx ended first.
func (r *Runner) acquire(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case r.sem <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *Runner) releaseSlot() { <-r.sem }
