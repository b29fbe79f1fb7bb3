package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// outcome is how an attempt ended.
type outcome struct {
	result map[string]string // result file + stdout + exit_code
	reason string            // "" = success, else the error text
	cause  error             // why it was killed, if it was
	logs   []string          // the last EndingLogLines lines of its Redis log
	files  string            // the files its outputs matched, JSON (outputs.go)
}

// settle writes the end of an attempt: finished, failed, retried or — for
// a superseded attempt — nothing at all.
func (r *Runner) settle(a *attempt, out outcome) {
	switch {
	case errors.Is(out.cause, errLeaseLost):
		a.log.Info("executor: attempt superseded; its result is dropped")
		r.releaseLease(context.Background(), a.ctxID, a.lease)
	case out.reason == "":
		r.complete(a, model.JobFinished, out)
	case errors.Is(out.cause, errStopped), errors.Is(out.cause, errUncontainable), errors.Is(out.cause, errOutputs):
		r.complete(a, model.JobError, out)
	case errors.Is(out.cause, errDrained):
		r.retryOrFail(a, out, 0)
	default:
		r.retryOrFail(a, out, r.backoff(a.lease.Attempt))
	}
}

// complete ends the job with a final status (fenced on the attempt),
// releases the lease and calls the OnJobDone hooks.
func (r *Runner) complete(a *attempt, status model.JobStatus, out outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	fields := a.traced(model.Hash{"result": encodeResult(out.result), "error": out.reason})
	if out.files != "" {
		fields[model.ExtraFiles] = out.files
	}
	job := a.ended(status, out)
	written := r.jobEnding(a.ctxID, job, out.logs)
	err := r.st.Queues.CompleteLeased(ctx, a.ctxID, a.lease, r.cfg.RunnerID, status, fields)
	written(err == nil)
	if err != nil {
		r.logWriteErr(a, "complete", err)
		return
	}
	r.jobDone(a.ctxID, job)
}

// retryOrFail puts the job back as a new attempt after delay when its
// retries allow, else ends it with the attempt's error.
func (r *Runner) retryOrFail(a *attempt, out outcome, delay time.Duration) {
	if a.lease.Attempt > a.job.Retries {
		r.complete(a, model.JobError, out)
		return
	}
	if delay > 0 {
		a.log.Info("executor: attempt failed; retrying", "in", delay, "reason", out.reason)
		r.endAttempt(a, out)
		switch cause := r.waitBackoff(a, delay); {
		case errors.Is(cause, errStopped):
			out.reason, out.cause = reasonStopped, cause
			r.complete(a, model.JobError, out)
			return
		case errors.Is(cause, errLeaseLost):
			r.releaseLease(context.Background(), a.ctxID, a.lease)
			return
		}
	}
	r.requeue(a, out)
}

// endAttempt writes the end of a failed attempt on the job's timeline
// now, before the backoff: its end time and duration are the run's, not
// the run's and the wait's. The requeue after the wait ends it otherwise.
func (r *Runner) endAttempt(a *attempt, out outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if _, err := r.st.Jobs.EndAttempt(ctx, a.ctxID, a.key, a.lease.Attempt, retryingError(a.lease.Attempt, out)); err != nil {
		a.log.Warn("executor: writing the attempt's end", "err", err)
	}
}

// retryingError is the error of a failed attempt that will be retried.
func retryingError(attempt int64, out outcome) string {
	return fmt.Sprintf("attempt %d: %s (retrying)", attempt, out.reason)
}

// waitBackoff sleeps delay, holding the lease but no slot. It returns
// early with the attempt's cancel cause, or nil (also when the runner shuts
// down: the job is then put back at once).
func (r *Runner) waitBackoff(a *attempt, delay time.Duration) error {
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.intake.Done():
		return nil
	case <-a.ctx.Done():
		return context.Cause(a.ctx)
	}
}

// requeue puts the job back on its queue as a new attempt.
func (r *Runner) requeue(a *attempt, out outcome) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	fields := a.traced(model.Hash{"result": encodeResult(out.result),
		"error": retryingError(a.lease.Attempt, out)})
	n, err := r.st.Jobs.RequeueJob(ctx, a.ctxID, a.key, a.typ, a.lease.Attempt, fields)
	r.releaseLease(ctx, a.ctxID, a.lease)
	if err != nil {
		r.logWriteErr(a, "requeue", err)
		return
	}
	a.log.Debug("executor: requeued", "next_attempt", n)
}

func (r *Runner) logWriteErr(a *attempt, op string, err error) {
	if errors.Is(err, store.ErrFenced) || errors.Is(err, model.ErrBadTransition) {
		a.log.Info("executor: late report ignored", "op", op, "err", err)
		return
	}
	a.log.Error("executor: "+op, "err", err)
}

// backoff is the delay before retrying after attempt failed: RetryBackoff
// doubled per attempt, capped at RetryBackoffMax.
func (r *Runner) backoff(attempt int64) time.Duration {
	d := r.cfg.RetryBackoff
	for i := int64(1); i < attempt && d < r.cfg.RetryBackoffMax; i++ {
		d *= 2
	}
	return min(d, r.cfg.RetryBackoffMax)
}

func encodeResult(m map[string]string) string {
	if m == nil {
		m = map[string]string{}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func joinTypes(ts []string) string { return strings.Join(ts, ", ") }
