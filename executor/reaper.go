package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// reapBatch bounds the expired leases handled per context and pass.
const reapBatch = 100

// reapLoop puts back, in every served context, the jobs whose lease
// expired (their runner died or hangs), whoever held them: at each
// lease's expiry, the period apart at least (lease_watch.go); every
// period when the server publishes no notifications.
func (r *Runner) reapLoop(ctx context.Context) {
	period := min(max(r.cfg.Heartbeat, 100*time.Millisecond), 5*time.Second)
	w, written := r.leaseWatch(ctx)
	if w != nil {
		defer w.Close()
	}
	wait, known := period, true
	if w != nil {
		wait = 0 // a first pass at once, then none until a lease can expire
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		var wake <-chan struct{}
		if !known {
			wake = written // a lease where none was: look when it can expire
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
		for _, id := range r.servedIDs() {
			r.reapExpired(ctx, id)
		}
		if w != nil {
			wait, known = r.nextReap(ctx, period)
		}
		t.Reset(wait)
	}
}

func (r *Runner) reapExpired(ctx context.Context, id uint64) {
	ls, err := r.st.Queues.ExpiredLeases(ctx, id, time.Now(), reapBatch)
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("executor: expired leases", "context", id, "err", err)
		}
		return
	}
	for _, l := range ls {
		if l.Owner == r.cfg.RunnerID && r.holds(id, l.JobKey, l.Attempt) {
			continue // ours and alive: the heartbeat was late, not the runner dead
		}
		r.reclaim(ctx, id, l, true)
	}
}

// reclaimOwn handles what this runner left in its processing list of a
// context when it last stopped (crash or kill -9): each job is put back as
// a new attempt, or failed when its retries are spent.
func (r *Runner) reclaimOwn(ctx context.Context, id uint64) {
	keys, err := r.st.Queues.ProcessingJobs(ctx, id, r.cfg.RunnerID)
	if err != nil {
		r.log.Warn("executor: reclaim leftovers", "context", id, "err", err)
		return
	}
	for _, key := range keys {
		l, err := r.st.Queues.LeaseOf(ctx, id, key)
		switch {
		case errors.Is(err, store.ErrNotFound) || err == nil && l.Owner != r.cfg.RunnerID:
			_ = r.st.Queues.DropProcessing(ctx, id, r.cfg.RunnerID, key) // no lease of ours any more
		case err != nil:
			r.log.Warn("executor: reclaim leftovers", "context", id, "job", key, "err", err)
		case !r.holds(id, key, l.Attempt):
			r.log.Info("executor: reclaiming leftover job", "context", id, "job", key, "attempt", l.Attempt)
			r.reclaim(ctx, id, l, false)
		}
	}
}

func (r *Runner) holds(id uint64, key string, attempt int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.running[runKey{id, key, attempt}]
	return ok
}

// reclaim takes over lease l (only if expired, when onlyExpired) and ends
// the attempt it covered: a started job is put back as a new attempt or
// failed when its retries are spent; a job that never started is put back;
// a stopped one ends "stopped"; a stale lease is just dropped.
func (r *Runner) reclaim(ctx context.Context, id uint64, l store.Lease, onlyExpired bool) {
	mine, ok, err := r.st.Queues.TakeLease(ctx, id, l, r.cfg.RunnerID, r.cfg.Lease, onlyExpired)
	if err != nil || !ok {
		if err != nil {
			r.log.Warn("executor: take lease", "context", id, "job", l.JobKey, "err", err)
		}
		return
	}
	if l.Owner == r.cfg.RunnerID {
		r.killOrphaned(id, l)
	}
	job, err := r.st.Jobs.LoadJobKey(ctx, id, l.JobKey)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case errors.Is(err, model.ErrBadField):
		if !r.failReclaimed(ctx, id, l, nil, "cannot parse job: "+err.Error()) {
			return
		}
	case err != nil: // Redis trouble: keep the lease; it expires and a later pass retries
		r.log.Warn("executor: load reclaimed job", "context", id, "job", l.JobKey, "err", err)
		return
	case job.Attempt != l.Attempt || job.Status.Terminal(): // the lease outlived its attempt
	default:
		if !r.resolveReclaimed(ctx, id, l, job) {
			return
		}
	}
	if err := r.st.Queues.ReleaseLease(ctx, id, mine, l.Owner); err != nil {
		r.log.Warn("executor: release reclaimed lease", "job", l.JobKey, "err", err)
	}
}

// killOrphaned kills what an attempt of this runner left running when the
// runner died: its cgroup, and the process groups found by its directory.
func (r *Runner) killOrphaned(id uint64, l store.Lease) {
	dir := r.jobDir(id, l.JobKey, l.Attempt)
	if r.cg != nil && r.cg.killLeftover(jobCgroupName(id, dir)) {
		r.log.Info("executor: killed orphaned job cgroup", "context", id, "job", l.JobKey)
	}
	if n := killOrphans(dir); n > 0 {
		r.log.Info("executor: killed orphaned job processes", "context", id, "job", l.JobKey, "groups", n)
	}
}

// resolveReclaimed ends or puts back the job of a reclaimed lease; false
// when Redis failed (the lease is then kept until it expires again).
func (r *Runner) resolveReclaimed(ctx context.Context, id uint64, l store.Lease, job *model.RunnerJob) bool {
	why := fmt.Sprintf("lease expired: runner %s stopped renewing it", l.Owner)
	if l.Owner == r.cfg.RunnerID {
		why = "runner restarted while the job ran"
	}
	stopped, err := r.st.Queues.StopRequested(ctx, id, l.JobKey, l.Attempt)
	switch {
	case err != nil:
		r.log.Warn("executor: reclaimed job stop marker", "job", l.JobKey, "err", err)
		return false
	case stopped:
		return r.failReclaimed(ctx, id, l, job, reasonStopped)
	case job.Status == model.JobStarted && l.Attempt > job.Retries:
		return r.failReclaimed(ctx, id, l, job, why+" (no retries left)")
	}
	fields := model.Hash{"error": fmt.Sprintf("attempt %d: %s (retrying)", l.Attempt, why)}
	n, err := r.st.Jobs.RequeueJob(ctx, id, l.JobKey, job.ScriptType, l.Attempt, fields)
	if err != nil {
		r.log.Warn("executor: requeue reclaimed job", "job", l.JobKey, "err", err)
		return errors.Is(err, store.ErrFenced) || errors.Is(err, model.ErrBadTransition)
	}
	r.log.Info("executor: job put back", "context", id, "job", l.JobKey, "attempt", n, "why", why)
	return true
}

// failReclaimed ends a reclaimed job with an error (job may be nil when it
// cannot be parsed: then no hook runs); false when Redis failed.
func (r *Runner) failReclaimed(ctx context.Context, id uint64, l store.Lease, job *model.RunnerJob, reason string) bool {
	err := r.st.Jobs.CompleteJob(ctx, id, l.JobKey, l.Attempt, model.JobError, model.Hash{"error": reason})
	if err != nil {
		r.log.Warn("executor: fail reclaimed job", "job", l.JobKey, "err", err)
		return errors.Is(err, store.ErrFenced) || errors.Is(err, model.ErrBadTransition)
	}
	r.log.Info("executor: reclaimed job failed", "context", id, "job", l.JobKey, "reason", reason)
	if job != nil {
		job.Status, job.Error, job.UpdatedAt = model.JobError, reason, time.Now().Unix()
		r.jobDone(id, job)
	}
	return true
}
