package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Stop stops a job of context ctxID. It records a stop marker and
// announces it, so:
//   - a job running here is killed at once (its process group gets
//     SIGTERM, SIGKILL after at most 0.5 s) and ends "error: stopped";
//   - a job still on its queue is taken off and ends "error: stopped" before
//     Stop returns;
//   - a job in any other state (waiting for prerequisites, being claimed,
//     running on another runner of this Redis) never starts, or is killed
//     by its runner on the announcement or at its next heartbeat.
//
// A job that already ended gives ErrJobEnded; an unknown one
// store.ErrNotFound.
func (r *Runner) Stop(ctx context.Context, ctxID uint64, jobKey string) error {
	info, err := r.st.Queues.MarkStop(ctx, ctxID, jobKey)
	if err != nil {
		return fmt.Errorf("executor.Stop: %w", err)
	}
	if r.stopLocal(ctxID, jobKey, max(info.Attempt, 1)) {
		return nil
	}
	switch {
	case info.Status.Terminal():
		return fmt.Errorf("executor.Stop %s: %w (%s)", jobKey, ErrJobEnded, info.Status)
	case info.Status == model.JobStarted:
		return nil
	}
	return r.stopQueued(ctx, ctxID, jobKey, info)
}

// stopQueued takes a queued job off its queue and ends it "stopped".
func (r *Runner) stopQueued(ctx context.Context, ctxID uint64, jobKey string, info store.StopInfo) error {
	l, ok, err := r.st.Queues.TakeQueued(ctx, ctxID, jobKey, info.ScriptType, r.cfg.RunnerID, info.Attempt, r.cfg.Lease)
	if err != nil {
		return fmt.Errorf("executor.Stop %s: %w", jobKey, err)
	}
	if !ok {
		return nil // not on its queue: the marker keeps it from starting
	}
	job, _ := r.st.Jobs.LoadJobKey(ctx, ctxID, jobKey) // nil when unreadable: no hook then
	r.failLeased(ctxID, l, job, reasonStopped)
	return nil
}

// stopNoteTTL is how long a stop request is remembered for an attempt
// that may register after it (claimed just before the marker was set).
const stopNoteTTL = time.Minute

// jobRef names a job of a context.
type jobRef struct {
	ctxID uint64
	key   string
}

// stopNote is a remembered stop request: attempts up to upTo (0 = any).
type stopNote struct {
	upTo int64
	at   time.Time
}

// stopLocal kills the attempts of the job held here up to upTo (0 = any)
// and remembers the request, so an attempt that registers right after is
// killed at once too. It reports whether one was running.
func (r *Runner) stopLocal(ctxID uint64, key string, upTo int64) bool {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for ref, n := range r.stopNotes {
		if now.Sub(n.at) > stopNoteTTL {
			delete(r.stopNotes, ref)
		}
	}
	r.stopNotes[jobRef{ctxID, key}] = stopNote{upTo: upTo, at: now}
	found := false
	for k, a := range r.running {
		if k.ctxID == ctxID && k.key == key && (upTo == 0 || k.attempt <= upTo) {
			a.cancel(errStopped)
			found = true
		}
	}
	return found
}

// stopNoted reports whether a remembered stop request covers an attempt;
// mu is held.
func (r *Runner) stopNoted(ctxID uint64, key string, attempt int64) bool {
	n, ok := r.stopNotes[jobRef{ctxID, key}]
	return ok && time.Since(n.at) <= stopNoteTTL && (n.upTo == 0 || attempt <= n.upTo)
}
