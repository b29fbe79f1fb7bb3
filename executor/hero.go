package executor

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Hero job states the worker writes in hero:job:<id> "status" (clients
// write "dispatched", and a requeued job is "dispatched" again).
const (
	heroDispatched = "dispatched"
	heroStarted    = "started"
	heroFinished   = "finished"
	heroError      = "error"
)

// heroBlock is how long one blocking read of a hero queue waits; it also
// bounds how long Shutdown waits for the hero loops.
const heroBlock = 500 * time.Millisecond

// heroStoppedCap bounds the remembered stop requests for hero jobs not
// seen yet.
const heroStoppedCap = 10000

// reasonWorkerDied ends a job whose worker died while it ran and whose
// retries are spent.
const reasonWorkerDied = "worker died while the job ran (no retries left)"

// heroLoop serves hero:work_queue:<worker>: it takes a job id (BLPOP
// order, into hero:processing:<worker>), waits for a slot and runs it. A
// job that is not concurrent runs in the loop's stead, as the seed's
// worker runs a job in its own thread: nothing else is taken until it
// ended (or began waiting for the jobs it depends on).
func (r *Runner) heroLoop(ctx context.Context) {
	w := r.cfg.WorkerID
	r.heroReclaim(ctx)
	for ctx.Err() == nil {
		id, err := r.st.Queues.HeroNext(ctx, w, heroBlock)
		if err != nil {
			if ctx.Err() == nil {
				r.log.Warn("executor: hero work queue", "worker", w, "err", err)
				sleepCtx(ctx, time.Second)
			}
			continue
		}
		if id == "" {
			continue
		}
		if !r.acquireFor(ctx, nil) {
			r.heroPutBack(id)
			return
		}
		gate := make(chan struct{})
		r.jobWG.Add(1)
		go func() {
			defer r.jobWG.Done()
			r.runHero(ctx, id, sync.OnceFunc(func() { close(gate) }))
		}()
		select {
		case <-gate:
		case <-ctx.Done():
		}
	}
}

func (r *Runner) heroPutBack(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := r.st.Queues.HeroPutBack(ctx, r.cfg.WorkerID, id); err != nil {
		r.log.Warn("executor: hero put back", "id", id, "err", err)
	}
}

// heroReclaim handles the ids a previous run of this worker left in its
// processing list: never started → back on the queue; started → requeued
// while its retries allow, else answered with an error; ended → dropped.
func (r *Runner) heroReclaim(ctx context.Context) {
	w := r.cfg.WorkerID
	ids, err := r.st.Queues.HeroProcessing(ctx, w)
	if err != nil {
		r.log.Warn("executor: hero leftovers", "worker", w, "err", err)
		return
	}
	for _, id := range ids {
		h, err := r.st.Queues.HeroLoad(ctx, id)
		switch st := h["status"]; {
		case err != nil || st == heroFinished || st == heroError:
			_ = r.st.Queues.HeroDrop(ctx, w, id)
		case st == heroStarted:
			r.heroRequeueOrFail(ctx, id, h)
		default:
			r.heroPutBack(id)
		}
	}
}

// heroRequeueOrFail handles a job whose worker died while it ran: the
// seed's "jobs can be requeued" while retries are left, error after.
func (r *Runner) heroRequeueOrFail(ctx context.Context, id string, h model.Hash) {
	retries, err1 := heroCount(h, "retries")
	attempts, err2 := heroCount(h, "attempts")
	if err1 != nil || err2 != nil || attempts > retries {
		r.heroAnswer(id, outcome{reason: reasonWorkerDied})
		return
	}
	fields := model.Hash{"status": heroDispatched, "updated_at": store.HeroTime(time.Now())}
	if err := r.st.Queues.HeroUpdate(ctx, id, fields); err != nil {
		r.log.Warn("executor: hero requeue", "id", id, "err", err)
	}
	r.log.Info("executor: hero job requeued: its worker died while it ran", "id", id,
		"attempts", attempts, "retries", retries)
	r.heroPutBack(id)
}

// registerHero makes a hero job reachable by stop and drain (context 0).
func (r *Runner) registerHero(a *attempt) {
	a.ctx, a.cancel = context.WithCancelCause(context.Background())
	r.mu.Lock()
	r.running[runKey{0, a.key, 1}] = a
	r.mu.Unlock()
	if r.draining() {
		a.cancel(errDrained)
	}
}
