package control

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// maxDelay bounds how far ahead a job may be held back.
const maxDelay = 366 * 24 * time.Hour

// checkJobAt checks run_at and delay: at most one, not negative, not more
// than a year ahead.
func checkJobAt(p JobRunParams) error {
	switch {
	case p.RunAt != 0 && p.Delay != 0:
		return api.InvalidParams("delay", "give run_at or delay, not both")
	case p.RunAt < 0:
		return api.InvalidParams("run_at", "unix seconds, such as %d", time.Now().Add(time.Hour).Unix())
	case p.Delay < 0 || time.Duration(p.Delay)*time.Second > maxDelay:
		return api.InvalidParams("delay", "seconds from now, 0 to %d", int64(maxDelay/time.Second))
	case p.RunAt > 0 && time.Until(time.Unix(p.RunAt, 0)) > maxDelay:
		return api.InvalidParams("run_at", "more than a year ahead")
	}
	return nil
}

// at is when the job may start, if the parameters say so.
func (p JobRunParams) at(now time.Time) (time.Time, bool) {
	switch {
	case p.RunAt > 0:
		return time.Unix(p.RunAt, 0), true
	case p.Delay > 0:
		return now.Add(time.Duration(p.Delay) * time.Second), true
	}
	return time.Time{}, false
}

// enqueueAt stores job j with its run_at and (run) queues it when due: a
// job due later waits in the context's timers.
func (h *Handlers) enqueueAt(ctx context.Context, j *model.RunnerJob, at time.Time, run bool) error {
	if !run {
		j.Extra = model.Hash{store.RunAtField: store.FormatRunAt(at)}
		return h.Store.SaveJob(ctx, j)
	}
	_, err := h.Store.EnqueueJobAt(ctx, j, at, time.Now())
	return err
}
