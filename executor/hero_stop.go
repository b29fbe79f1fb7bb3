package executor

import (
	"context"
	"time"
)

// heroStopLoop serves hero:stop_queue:<worker>.
func (r *Runner) heroStopLoop(ctx context.Context) {
	for ctx.Err() == nil {
		id, err := r.st.Queues.HeroNextStop(ctx, r.cfg.WorkerID, heroBlock)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("executor: hero stop queue", "err", err)
				sleepCtx(ctx, time.Second)
			}
			continue
		}
		if id != "" {
			r.heroStop(ctx, id)
		}
	}
}

// heroStop kills a running hero job, ends a queued one, or remembers the
// id so the job never starts.
func (r *Runner) heroStop(ctx context.Context, id string) {
	if r.cancelJob(0, id, errStopped) {
		return
	}
	r.mu.Lock()
	if len(r.heroStopped) >= heroStoppedCap {
		clear(r.heroStopped)
	}
	r.heroStopped[id] = struct{}{}
	r.mu.Unlock()
	taken, err := r.st.Queues.HeroTakeQueued(ctx, r.cfg.WorkerID, id)
	if err != nil {
		r.log.Warn("executor: hero stop", "id", id, "err", err)
		return
	}
	if taken && r.takeHeroStop(id) {
		r.heroAnswer(id, outcome{reason: reasonStopped})
	}
}

// takeHeroStop reports (and forgets) a stop request for id.
func (r *Runner) takeHeroStop(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.heroStopped[id]
	delete(r.heroStopped, id)
	return ok
}
