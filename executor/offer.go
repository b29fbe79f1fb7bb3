package executor

import (
	"github.com/hyphae-run/hyphae/context/store"
)

// Offers: a component about to queue a job in a served context (the
// bridge materialising a job from another agent) can claim it for this
// runner in the same round trip (store.MaterializeAndClaim) instead of
// leaving it to the context's loop, which would wake on the queue's
// keyspace notification and claim in a round trip of its own.

// Offer returns what to claim with for context ctxID and the function to
// hand the claim to, when this runner takes work, serves ctxID and has a
// slot free that no loop is waiting for; ok is false otherwise (queue the
// job the usual way). A slot is held from Offer until hand is called,
// exactly once: with the claim (it runs here, as if the context's loop had
// claimed it) or with nil (not claimed: the job was queued behind a
// backlog, refused, or its write failed). Shutdown waits for outstanding
// offers.
func (r *Runner) Offer(ctxID uint64) (spec store.ClaimSpec, hand func(cl *store.Claim), ok bool) {
	r.mu.Lock()
	sc := r.contexts[ctxID]
	if !r.started || r.stopping || sc == nil || sc.ctx.Err() != nil || r.waiting.Load() > 0 || r.cfg.limited() {
		r.mu.Unlock()
		return store.ClaimSpec{}, nil, false
	}
	select {
	case r.sem <- struct{}{}:
	default:
		r.mu.Unlock()
		return store.ClaimSpec{}, nil, false
	}
	if !r.intakeWork.Enter() { // under mu with stopping false: it does not refuse
		r.mu.Unlock()
		r.releaseSlot()
		return store.ClaimSpec{}, nil, false
	}
	r.mu.Unlock()
	spec = store.ClaimSpec{RunnerID: r.cfg.RunnerID, Types: sc.order(r.served), Lease: r.cfg.Lease}
	hand = func(cl *store.Claim) {
		defer r.intakeWork.Leave()
		if cl == nil {
			r.releaseSlot()
			return
		}
		r.dispatch(ctxID, cl)
	}
	return spec, hand, true
}
