package executor

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// writeTimeout bounds the Redis writes that end an attempt; they do not
// use the attempt's context, which may have been cancelled.
const writeTimeout = 30 * time.Second

// attempt is one run of a job this runner holds a lease on.
type attempt struct {
	ctxID  uint64
	key    string
	typ    string // script type it runs as
	job    *model.RunnerJob
	lease  store.Lease
	ctx    context.Context // cancelled with a cause: stop, drain, lease lost
	cancel context.CancelCauseFunc
	slot   sync.Once // frees the concurrency slot once
	log    *slog.Logger
	// newTrace: the job came without a traceparent and got one here
	// (giveTrace); its end records it (traced).
	newTrace bool
}

// runClaimed runs a job claimed with VerdictRun, holding one slot.
func (r *Runner) runClaimed(ctxID uint64, cl *store.Claim) {
	job, err := model.JobFromHash(cl.JobKey, cl.Hash)
	if err != nil {
		r.releaseSlot()
		r.rejectUnparseable(ctxID, cl, err)
		return
	}
	a := r.register(ctxID, cl, job)
	defer r.unregister(a)
	if a.ctx.Err() == nil { // not stopped or drained before it began
		r.callHooks(&r.starting, ctxID, job)
	}
	a.log.Debug("executor: running job", "type", a.typ)
	span := r.cfg.Tracer.Begin(tracing.SpanRun, job.TraceID(), ctxID, cl.JobKey)
	out := noopOutcome() // noop: no directory, no environment, no process
	if !r.types[a.typ].noop {
		out = r.execute(a)
	}
	span.End(runErr(out))
	if sc := r.chainable(a, out); sc != nil {
		r.completeAndClaim(a, sc, out)
		return
	}
	r.freeSlot(a)
	r.settle(a, out)
}

// register records a running attempt so Stop, the heartbeat and drain can
// reach it.
func (r *Runner) register(ctxID uint64, cl *store.Claim, job *model.RunnerJob) *attempt {
	job.ContextID, job.Attempt = ctxID, cl.Attempt
	newTrace := giveTrace(job)
	typ := job.ScriptType
	if _, ok := r.types[typ]; !ok {
		typ = cl.Type // run as the queue it came from
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	a := &attempt{ctxID: ctxID, key: cl.JobKey, typ: typ, job: job, lease: cl.Lease,
		ctx: ctx, cancel: cancel, newTrace: newTrace,
		log: r.log.With("context", ctxID, "job", cl.JobKey, "attempt", cl.Attempt, "trace_id", job.TraceID())}
	r.mu.Lock()
	r.running[runKey{ctxID, cl.JobKey, cl.Attempt}] = a
	stopped := r.stopNoted(ctxID, cl.JobKey, cl.Attempt)
	r.mu.Unlock()
	switch {
	case stopped:
		cancel(errStopped)
	case r.draining():
		cancel(errDrained)
	}
	return a
}

func (r *Runner) unregister(a *attempt) {
	r.mu.Lock()
	delete(r.running, runKey{a.ctxID, a.key, a.lease.Attempt})
	r.mu.Unlock()
	if a.cancel != nil {
		a.cancel(nil)
	}
	r.freeSlot(a)
}

func (r *Runner) freeSlot(a *attempt) { a.slot.Do(r.releaseSlot) }

// cancelWhere cancels the running attempts matching pick with cause and
// reports whether there were any.
func (r *Runner) cancelWhere(pick func(runKey) bool, cause error) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	found := false
	for k, a := range r.running {
		if pick(k) {
			a.cancel(cause)
			found = true
		}
	}
	return found
}

// cancelJob cancels every attempt of one job held here.
func (r *Runner) cancelJob(ctxID uint64, key string, cause error) bool {
	return r.cancelWhere(func(k runKey) bool { return k.ctxID == ctxID && k.key == key }, cause)
}

// endUnstarted ends a leased job that never ran (stopped while queued, or
// of a type nobody here serves) with status error and reason.
func (r *Runner) endUnstarted(ctxID uint64, cl *store.Claim, reason string) {
	job, err := model.JobFromHash(cl.JobKey, cl.Hash)
	if err != nil {
		job = nil // ended all the same; no hook without a job
	}
	r.failLeased(ctxID, cl.Lease, job, reason)
}

// failLeased ends the job under lease l with status error and reason,
// releases the lease and, when job is known, calls the hooks.
func (r *Runner) failLeased(ctxID uint64, l store.Lease, job *model.RunnerJob, reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	err := r.st.Queues.CompleteLeased(ctx, ctxID, l, r.cfg.RunnerID, model.JobError, model.Hash{"error": reason})
	if err != nil {
		r.log.Warn("executor: end job", "context", ctxID, "job", l.JobKey, "reason", reason, "err", err)
		return
	}
	if job != nil {
		job.ContextID, job.Attempt, job.Status, job.Error = ctxID, l.Attempt, model.JobError, reason
		job.UpdatedAt = time.Now().Unix()
		r.jobDone(ctxID, job)
	}
}

// rejectUnparseable sends a job whose hash cannot be decoded to the dead
// letter list and ends it with the reason, so its waiters hear of it.
func (r *Runner) rejectUnparseable(ctxID uint64, cl *store.Claim, perr error) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	reason := "cannot parse job: " + perr.Error()
	r.log.Warn("executor: dead letter", "context", ctxID, "job", cl.JobKey, "err", perr)
	dl := store.DeadLetter{Key: cl.JobKey, Queue: store.QueueKey(cl.Type), Reason: reason, Runner: r.cfg.RunnerID}
	if err := r.st.Queues.PushDeadLetter(ctx, ctxID, dl); err != nil {
		r.log.Warn("executor: dead letter", "job", cl.JobKey, "err", err)
	}
	if err := r.st.Queues.CompleteLeased(ctx, ctxID, cl.Lease, r.cfg.RunnerID, model.JobError,
		model.Hash{"error": reason}); err != nil {
		r.log.Warn("executor: end unparseable job", "job", cl.JobKey, "err", err)
	}
}

func (r *Runner) releaseLease(ctx context.Context, ctxID uint64, l store.Lease) {
	if err := r.st.Queues.ReleaseLease(ctx, ctxID, l, r.cfg.RunnerID); err != nil {
		r.log.Warn("executor: release lease", "context", ctxID, "job", l.JobKey, "err", err)
	}
}

// unknownType is the error of a job of a type this agent lacks. It names
// the runner (an agent's peer ID), since the error may be read on the
// agent that sent the job.
func (r *Runner) unknownType(t string) string {
	return fmt.Sprintf("no runner on this agent (%s) serves script type %q; it has: %s", r.cfg.RunnerID, t, joinTypes(r.served))
}
