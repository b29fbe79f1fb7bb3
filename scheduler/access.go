package scheduler

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// run returns the cached flowRun of a flow, loading it when absent.
// ErrEnded when the flow has ended.
func (s *Scheduler) run(ctx context.Context, ctxID, flowID uint64) (*flowRun, error) {
	k := runKey{ctxID, flowID}
	s.mu.Lock()
	r := s.runs[k]
	s.mu.Unlock()
	if r != nil && !r.dead.Load() {
		return r, nil
	}
	g, err := s.st.Flows.LoadFlowGraph(ctx, ctxID, flowID)
	if err != nil {
		return nil, err
	}
	if g.Flow.Status.Terminal() {
		return nil, fmt.Errorf("flow %d is %s: %w", flowID, g.Flow.Status, ErrEnded)
	}
	if r, err = newRun(g); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.runs[k]; cur != nil && !cur.dead.Load() {
		return cur, nil
	}
	s.runs[k] = r
	return r, nil
}

// withRun runs fn on the flow with its lock held, then stops the jobs fn
// asked to stop, drops the run from the cache when it ended or when fn
// failed (the cache may then disagree with Redis) and tells subscribers.
func (s *Scheduler) withRun(ctx context.Context, ctxID, flowID uint64, fn func(*flowRun) error) error {
	for try := 0; ; try++ {
		r, err := s.run(ctx, ctxID, flowID)
		if err != nil {
			return err
		}
		r.mu.Lock()
		if r.dead.Load() && try < 3 {
			r.mu.Unlock()
			continue
		}
		err = fn(r)
		stops, ended := r.takeStops(), r.ended
		if ended || err != nil {
			r.dead.Store(true)
		}
		r.mu.Unlock()
		s.stopJobs(ctx, r, stops)
		if ended || err != nil {
			s.evict(r)
		}
		s.notify(r.key, ended)
		return err
	}
}

func (s *Scheduler) evict(r *flowRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runs[r.key] == r {
		delete(s.runs, r.key)
	}
}

// stopJobs asks Config.Stop to stop the named jobs (already marked
// cancelled), with their current hashes.
func (s *Scheduler) stopJobs(ctx context.Context, r *flowRun, names []string) {
	if len(names) == 0 {
		return
	}
	if s.cfg.Stop == nil {
		s.log.Warn("no Stop configured: cancelled jobs keep running", "flow", r.key.id, "jobs", names)
		return
	}
	keys := make([]string, len(names))
	for i, n := range names {
		keys[i] = r.nodes[n].key
	}
	jobs, err := s.st.Flows.LoadJobKeys(ctx, r.key.ctx, keys)
	if err != nil {
		s.log.Warn("loading jobs to stop", "flow", r.key.id, "err", err)
		return
	}
	for i, j := range jobs {
		if j == nil || j.Status.Terminal() {
			continue
		}
		if j.ScriptType == store.WaitForType { // parked here, by no runner (wait_for.go)
			s.stopWait(ctx, r.key.ctx, keys[i], j)
			continue
		}
		if err := s.cfg.Stop(ctx, r.key.ctx, keys[i], j); err != nil && !errors.Is(err, model.ErrBadTransition) {
			s.log.Warn("stopping job", "flow", r.key.id, "job", keys[i], "err", err)
		}
	}
}
