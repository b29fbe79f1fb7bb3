package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// heroDepPoll is how often a hero job waiting for others reads their
// status: they may run on any worker, so there is no local event to wait
// for.
const heroDepPoll = 250 * time.Millisecond

// heroWait is how a wait for a job's dependencies ended.
type heroWait int

const (
	heroReady heroWait = iota // all finished: run it
	heroFail                  // one cannot finish, or the job was stopped: end it
	heroLeave                 // the worker is shutting down: put it back
)

// heroAwait lets the work loop go on, gives up the job's slot while it
// waits for the hero jobs it depends on, and takes a slot again when they
// finished. It reports whether the job should run now.
func (r *Runner) heroAwait(intake context.Context, a *attempt, hj heroJob, open func()) bool {
	open()
	r.freeSlot(a)
	got, reason := r.heroWaitDeps(intake, a, hj)
	switch got {
	case heroFail:
		r.heroAnswer(hj.id, outcome{reason: reason})
		return false
	case heroLeave:
		r.heroPutBack(hj.id)
		return false
	}
	if !r.acquireFor(intake, nil) {
		r.heroPutBack(hj.id)
		return false
	}
	a.slot = sync.Once{} // the new slot is freed once again
	return true
}

// heroWaitDeps polls the job's dependencies until all finished, one ended
// error, the job is stopped, or the worker shuts down. A dependency not
// written yet is waited for (a client may store the jobs one by one),
// for up to the job's timeout.
func (r *Runner) heroWaitDeps(intake context.Context, a *attempt, hj heroJob) (heroWait, string) {
	t := time.NewTicker(heroDepPoll)
	defer t.Stop()
	unwritten := time.Now().Add(hj.timeout) // a missing dependency is impossible from then
	logged := false
	for {
		left, missing, reason := r.heroDepsLeft(intake, hj.deps)
		switch {
		case reason != "":
			return heroFail, reason
		case len(left) == 0:
			return heroReady, ""
		case len(missing) > 0 && !time.Now().Before(unwritten):
			return heroFail, fmt.Sprintf("impossible: hero job %s was not written within %s (the job's timeout)",
				missing[0], hj.timeout)
		case !logged:
			a.log.Info("executor: hero job waits for the jobs it depends on", "waiting_for", left, "not_written", missing)
			logged = true
		}
		select {
		case <-t.C:
		case <-intake.Done():
			return heroLeave, ""
		case <-a.ctx.Done():
			if errors.Is(context.Cause(a.ctx), errStopped) {
				return heroFail, heroReasonStopped
			}
			return heroLeave, ""
		}
	}
}

// heroDepsLeft lists the dependencies not finished yet, and among them
// those with no hash yet; a reason when one never will finish (it ended
// error).
func (r *Runner) heroDepsLeft(ctx context.Context, deps []string) (left, missing []string, reason string) {
	for _, d := range deps {
		h, err := r.st.Queues.HeroLoad(ctx, d)
		switch {
		case errors.Is(err, store.ErrNotFound):
			left, missing = append(left, d), append(missing, d)
		case err != nil:
			if ctx.Err() == nil {
				r.log.Warn("executor: hero dependency", "id", d, "err", err)
			}
			left = append(left, d)
		case h["status"] == heroError:
			return nil, nil, "impossible: hero job " + d + " ended error"
		case h["status"] != heroFinished:
			left = append(left, d)
		}
	}
	return left, missing, ""
}
