package executor

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
)

// Chaining: a job that finished while its context's loop has work waiting
// keeps its slot and claims the context's next job in the round trip that
// writes its completion (store.CompleteAndClaim), instead of freeing the
// slot and leaving the claim to the loop: one round trip per job fewer
// when the runner is busy. The slot passes to the claimed job, or is freed
// when the queues were empty.

// chainable returns the served context of a finished attempt when its next
// job should be claimed with its completion: the attempt succeeded, the
// runner still takes work, the context is still served, its loop waits for
// a slot (it saw more jobs queued; an idle loop means the queues were
// empty, and a claim would most likely find nothing), and no other loop
// does (another context's, or the hero loop's: those get the slot instead,
// for fairness). Never with Config.NoChain.
func (r *Runner) chainable(a *attempt, out outcome) *servedContext {
	if r.cfg.NoChain || out.reason != "" || out.cause != nil || r.intake.Err() != nil {
		return nil
	}
	r.mu.Lock()
	sc := r.contexts[a.ctxID]
	r.mu.Unlock()
	if sc == nil || sc.ctx.Err() != nil {
		return nil
	}
	if own := sc.waiting.Load(); own == 0 || r.waiting.Load() > own {
		return nil
	}
	return sc
}

// completeAndClaim ends a with status finished, claims the next job of its
// context and hands the slot to it (or frees it), then calls the hooks.
func (r *Runner) completeAndClaim(a *attempt, sc *servedContext, out outcome) {
	a.slot.Do(func() {}) // the slot is this function's now
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	fields := a.traced(model.Hash{"result": encodeResult(out.result), "error": out.reason})
	job := a.ended(model.JobFinished, out)
	written := r.jobEnding(a.ctxID, job, out.logs)
	cl, claimErr, err := r.st.Queues.CompleteAndClaim(ctx, a.ctxID, a.lease, r.cfg.RunnerID, model.JobFinished,
		fields, sc.order(r.served), r.cfg.Lease)
	written(err == nil)
	if claimErr != nil && sc.ctx.Err() == nil {
		r.log.Warn("executor: claim", "context", a.ctxID, "err", claimErr)
	}
	if cl != nil {
		r.dispatch(a.ctxID, cl) // keeps the slot for a job to run
	} else {
		r.releaseSlot()
	}
	if err != nil {
		r.logWriteErr(a, "complete", err)
		return
	}
	r.jobDone(a.ctxID, job)
}
