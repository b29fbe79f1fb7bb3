package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// runHero runs one hero job taken with a slot held; open lets the work
// loop go on (at once for a concurrent job, when it ends otherwise).
func (r *Runner) runHero(intake context.Context, id string, open func()) {
	defer open()
	a := &attempt{ctxID: 0, key: id, lease: store.Lease{JobKey: id, Attempt: 1},
		log: r.log.With("hero_job", id)}
	r.registerHero(a) // first, so a stop reaches a job waiting for others
	defer r.unregister(a)
	if r.takeHeroStop(id) { // stopped while it was being taken
		a.cancel(errStopped)
	}
	hj, reason := r.prepareHero(id)
	if reason != "" {
		r.freeSlot(a)
		r.heroAnswer(id, outcome{reason: reason})
		return
	}
	if hj.concurrent {
		open()
	}
	if len(hj.deps) > 0 && !r.heroAwait(intake, a, hj, open) {
		return
	}
	r.heroAttempts(a, hj)
}

// prepareHero loads and checks a hero job; a non-empty reason ends it.
func (r *Runner) prepareHero(id string) (heroJob, string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	h, err := r.st.Queues.HeroLoad(ctx, id)
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
	case strings.TrimSpace(hj.script) == "" && hj.typ != NoopType:
		// Seed 004: "validate script content before execution". An empty
		// script would run and "finish" having done nothing (noop runs
		// nothing by design).
		return hj, "bad hero job: script is empty: nothing to run"
	case !r.hasType(hj.typ):
		return hj, r.unknownType(hj.typ)
	}
	// Checked before anything runs or is created; kept as it resolved
	// (heroStarted writes it back: get_job_logs reads the file it names).
	if hj.logPath, err = r.heroLogPath(hj.logPath); err != nil {
		return hj, err.Error()
	}
	return hj, ""
}

// heroAttempts runs the job until it finishes, or fails with no retries
// left, or is stopped or times out (neither is retried: the seed ends
// both at once, and a client awaiting the reply waits about the timeout).
func (r *Runner) heroAttempts(a *attempt, hj heroJob) {
	dir := r.heroJobDir(hj.id)
	if hj.attempts == 0 { // a fresh job: no output of an earlier one with its id
		_ = os.RemoveAll(dir)
	}
	for {
		if !r.heroBegin(a, &hj) {
			return
		}
		out := r.heroRun(a, hj, dir)
		r.heroWriteLog(a, dir, hj.logPath)
		out.reason = heroReason(out)
		if out.reason == "" || out.cause != nil || hj.attempts > hj.retries {
			r.freeSlot(a)
			r.heroAnswer(hj.id, out)
			return
		}
		a.log.Info("executor: hero job failed; retrying", "attempt", hj.attempts,
			"retries", hj.retries, "reason", out.reason)
		sleepCtx(a.ctx, r.backoff(int64(hj.attempts))) // as for jobs; a stop cuts it short
	}
}

// heroBegin starts an attempt: a stop asked for before the script ran
// ends the job "stopped" (the seed's worker loop, step 4), else it is
// marked started. A job drained before it started goes back on the queue.
// It reports whether the attempt should run.
func (r *Runner) heroBegin(a *attempt, hj *heroJob) bool {
	if errors.Is(context.Cause(a.ctx), errDrained) {
		r.freeSlot(a)
		r.heroPutBack(hj.id)
		return false
	}
	if errors.Is(context.Cause(a.ctx), errStopped) {
		r.freeSlot(a)
		r.heroAnswer(hj.id, outcome{reason: heroReasonStopped})
		return false
	}
	hj.attempts++
	r.heroStarted(*hj)
	return true
}

// heroRun runs one attempt's script.
func (r *Runner) heroRun(a *attempt, hj heroJob, dir string) outcome {
	env, notes := heroEnv(hj, r.cfg.WorkerID, dir)
	if hj.attempts > 1 {
		notes = append([]string{fmt.Sprintf("attempt %d of %d", hj.attempts, hj.retries+1)}, notes...)
	}
	return r.runScript(a.ctx, scriptSpec{typ: hj.typ, script: hj.script, dir: dir, env: env,
		notes: notes, timeout: hj.timeout})
}

// heroStarted marks a hero job started by this worker as attempt
// hj.attempts. A log_path is written back as the file it names, so a
// client reading it (the seed's get_job_logs) finds the file a relative
// path named.
func (r *Runner) heroStarted(hj heroJob) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	fields := model.Hash{"status": heroStarted, "updated_at": store.HeroTime(time.Now()),
		"worker_id": r.cfg.WorkerID, "attempts": fmt.Sprint(hj.attempts)}
	if hj.logPath != "" {
		fields["log_path"] = hj.logPath
	}
	if err := r.st.Queues.HeroUpdate(ctx, hj.id, fields); err != nil {
		r.log.Warn("executor: hero start", "id", hj.id, "err", err)
	}
}

// heroJobDir is <DataDir>/hero/<worker>/<id>, or <id>.job for an id that
// names the worker's log directory (a job with id "logs" must not run in,
// and clear, the directory that keeps every job's log).
func (r *Runner) heroJobDir(id string) string {
	name := safeName(id)
	if name == filepath.Base(r.heroLogDir()) {
		name += ".job"
	}
	return filepath.Join(r.cfg.DataDir, "hero", safeName(r.cfg.WorkerID), name)
}
