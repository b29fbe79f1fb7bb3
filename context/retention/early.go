package retention

import (
	"context"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/jobdir"
)

// Early sweeps: a runner ending thousands of jobs a second piles up more
// than ten times MaxJobs between two periodic sweeps, and the sweep that
// removes them all at once slows the jobs for seconds. So the agent's
// runner tells the janitor of each job it ends (Ended) and the janitor
// keeps, per context, the ended jobs its last sweep kept plus those ended
// since; past MaxJobs+Margin the loop sweeps that context's jobs, a
// Margin's worth at a time. Jobs that other programs end against the
// Redis contract are not counted: the periodic sweep still takes them.

// Ended tells the janitor that a job of context ctxID ended (the agent's
// runner calls it from each job's end). It never blocks: it counts, and
// wakes the loop with a signal that a full buffer drops (the pending one
// sees every context due). Nothing is counted when Off.
func (j *Janitor) Ended(ctxID uint64) {
	if j.cfg.Off {
		return
	}
	j.mu.Lock()
	j.ended[ctxID]++
	wake := j.markDue(ctxID)
	j.mu.Unlock()
	if wake {
		j.signal()
	}
}

// markDue marks context id due when its count passes MaxJobs+Margin, and
// reports whether it just did (the caller then signals). j.mu is held.
func (j *Janitor) markDue(id uint64) bool {
	if j.due[id] || j.ended[id] <= j.cfg.MaxJobs+j.cfg.Margin {
		return false
	}
	j.due[id] = true
	return true
}

// signal wakes the loop unless a wake-up is pending already.
func (j *Janitor) signal() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// listing restarts context id's count as a sweep lists its ended jobs:
// what ends from now on is beyond what the listing found (or found
// twice, which only brings the next sweep a little closer).
func (j *Janitor) listing(id uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ended[id] = 0
	delete(j.due, id)
}

// swept adds the ended jobs a sweep of context id listed and kept, and
// wakes the loop again if those ended meanwhile already pass the bound.
// A sweep that failed calls nothing: its context then waits for another
// Margin of jobs, or the next periodic sweep, rather than retrying hot.
func (j *Janitor) swept(id uint64, kept int) {
	j.mu.Lock()
	j.ended[id] += kept
	wake := j.markDue(id)
	j.mu.Unlock()
	if wake {
		j.signal()
	}
}

// takeDue returns the contexts due an early sweep, in order, and clears
// them.
func (j *Janitor) takeDue() []uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	ids := make([]uint64, 0, len(j.due))
	for id := range j.due {
		ids = append(ids, id)
	}
	clear(j.due)
	slices.Sort(ids)
	return ids
}

// sweepDue sweeps the jobs of the contexts due, with the turn as Prune
// takes it. Only jobs: flows and messages are not counted, so they wait
// for the periodic sweep. It logs at debug level, as it runs often.
func (j *Janitor) sweepDue(ctx context.Context) {
	select {
	case <-j.turn:
		defer func() { j.turn <- struct{}{} }()
	case <-ctx.Done():
		return
	}
	r := rules{cutoff: time.Now().Add(-j.cfg.MaxAge).Unix(), orphanGrace: min(j.cfg.MaxAge, orphanGrace)}
	for _, id := range j.takeDue() {
		rep := ContextReport{Context: id}
		dirs, err := readJobDirs(jobdir.JobsDir(j.cfg.DataDir, id))
		if err == nil {
			err = j.sweepJobs(ctx, id, r, dirs, &rep)
		}
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			j.log.Warn("retention: early sweep", "context", id, "err", err)
			continue
		}
		j.log.Debug("retention: swept early", "context", id, "jobs", rep.Jobs, "dirs", rep.Dirs,
			"redis_bytes", rep.RedisBytes)
	}
}
