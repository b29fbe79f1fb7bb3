package executor

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Hero job states the worker writes in hero:job:<id> "status" (clients
// write "dispatched").
const (
	heroStarted  = "started"
	heroFinished = "finished"
	heroError    = "error"
)

// heroBlock is how long one blocking read of a hero queue waits; it also
// bounds how long Shutdown waits for the hero loops.
const heroBlock = 500 * time.Millisecond

// heroStoppedCap bounds the remembered stop requests for hero jobs not
// seen yet.
const heroStoppedCap = 10000

// heroLoop serves hero:work_queue:<worker>: it takes a job id (BLPOP
// order, into hero:processing:<worker>), waits for a slot and runs it.
func (r *Runner) heroLoop(ctx context.Context) {
	w := r.cfg.WorkerID
	r.heroReclaim(ctx)
	for ctx.Err() == nil {
		id, err := r.st.HeroNext(ctx, w, heroBlock)
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
		r.jobWG.Add(1)
		go func() {
			defer r.jobWG.Done()
			r.runHero(id)
		}()
	}
}

func (r *Runner) heroPutBack(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := r.st.HeroPutBack(ctx, r.cfg.WorkerID, id); err != nil {
		r.log.Warn("executor: hero put back", "id", id, "err", err)
	}
}

// heroReclaim handles the ids a previous run of this worker left in its
// processing list: never started → back on the queue; started → answered
// with an error (hero jobs have no retries); ended → dropped.
func (r *Runner) heroReclaim(ctx context.Context) {
	w := r.cfg.WorkerID
	ids, err := r.st.HeroProcessing(ctx, w)
	if err != nil {
		r.log.Warn("executor: hero leftovers", "worker", w, "err", err)
		return
	}
	for _, id := range ids {
		h, err := r.st.HeroLoad(ctx, id)
		switch st := h["status"]; {
		case err != nil || st == heroFinished || st == heroError:
			_ = r.st.HeroDrop(ctx, w, id)
		case st == heroStarted:
			r.heroAnswer(id, outcome{reason: "worker restarted while the job ran"})
		default:
			r.heroPutBack(id)
		}
	}
}

// runHero runs one hero job; it holds a slot until the process ended.
func (r *Runner) runHero(id string) {
	a := &attempt{ctxID: 0, key: id, lease: store.Lease{JobKey: id, Attempt: 1},
		log: r.log.With("hero_job", id)}
	defer r.unregister(a)
	hj, reason := r.prepareHero(id)
	if reason != "" {
		r.freeSlot(a)
		r.heroAnswer(id, outcome{reason: reason})
		return
	}
	r.registerHero(a)
	if r.takeHeroStop(id) { // stopped while it was being taken
		a.cancel(errStopped)
	}
	r.heroStarted(id)
	dir := filepath.Join(r.cfg.DataDir, "hero", safeName(r.cfg.WorkerID), safeName(id))
	env, notes := heroEnv(hj, r.cfg.WorkerID, dir)
	out := r.runScript(a.ctx, scriptSpec{typ: hj.typ, script: hj.script, dir: dir, env: env,
		notes: notes, timeout: hj.timeout})
	r.freeSlot(a)
	r.heroAnswer(id, out)
}

// heroStarted marks a hero job started.
func (r *Runner) heroStarted(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	fields := model.Hash{"status": heroStarted, "updated_at": store.HeroTime(time.Now()),
		"worker_id": r.cfg.WorkerID}
	if err := r.st.HeroUpdate(ctx, id, fields); err != nil {
		r.log.Warn("executor: hero start", "id", id, "err", err)
	}
}

// prepareHero loads and checks a hero job; a non-empty reason ends it.
func (r *Runner) prepareHero(id string) (heroJob, string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	h, err := r.st.HeroLoad(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return heroJob{}, "hero job " + store.HeroJobKey(id) + " not found"
	}
	if err != nil {
		return heroJob{}, "load hero job: " + err.Error()
	}
	hj, err := r.parseHeroJob(id, h)
	switch {
	case err != nil:
		return hj, "bad hero job: " + err.Error()
	case r.takeHeroStop(id):
		return hj, reasonStopped
	case !r.hasType(hj.typ):
		return hj, r.unknownType(hj.typ)
	}
	return hj, ""
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
