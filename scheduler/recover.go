package scheduler

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// recoverContext resumes what a previous scheduler left in context ctxID:
// jobs_done entries it had taken go back on the list, and every active
// flow is reconciled with its jobs.
func (s *Scheduler) recoverContext(ctx context.Context, ctxID uint64) error {
	n, err := s.st.Flows.RestoreJobsDone(ctx, ctxID, s.proc)
	if err != nil {
		return fmt.Errorf("recover context %d: %w", ctxID, err)
	}
	ids, err := s.st.Flows.ActiveFlows(ctx, ctxID)
	if err != nil {
		return fmt.Errorf("recover context %d: %w", ctxID, err)
	}
	if n > 0 || len(ids) > 0 {
		s.log.Info("recovering", "context", ctxID, "events", n, "flows", len(ids))
	}
	for _, id := range ids {
		err := s.withRun(ctx, ctxID, id, func(r *flowRun) error { return s.reconcile(ctx, r) })
		if errors.Is(err, ErrEnded) || errors.Is(err, store.ErrNotFound) {
			_, _, err = s.st.Flows.ApplyFlowStep(ctx, ctxID, id, store.FlowStep{Active: "remove"})
		}
		if err != nil {
			s.log.Warn("recovering flow", "context", ctxID, "flow", id, "err", err)
		}
	}
	return nil
}

// reconcile brings a flow loaded from Redis up to date (caller holds mu):
// jobs that ended while nobody listened are settled, ready jobs are
// dispatched, the timeout is re-armed, and a flow with nothing left ends.
func (s *Scheduler) reconcile(ctx context.Context, r *flowRun) error {
	if r.compensating {
		return s.reconcileComp(ctx, r)
	}
	if err := s.settleEnded(ctx, r); err != nil || r.ended {
		return err
	}
	if r.fatal != "" && r.onFailure == flowfile.OnFailureStop {
		return s.abort(ctx, r, r.fatal)
	}
	if err := s.dispatchStalled(ctx, r); err != nil || r.ended {
		return err
	}
	if r.timeout > 0 && !r.deadline.IsZero() && !s.cfg.Now().Before(r.deadline) {
		return s.abort(ctx, r, "timeout after "+r.timeout.String())
	}
	s.armTimer(r)
	return s.maybeFinish(ctx, r)
}

// settleEnded handles in-flight nodes whose job has ended.
func (s *Scheduler) settleEnded(ctx context.Context, r *flowRun) error {
	names := r.inState(model.NodeDispatched, model.NodeRunning)
	keys := make([]string, len(names))
	for i, name := range names {
		keys[i] = r.nodes[name].key
	}
	jobs, err := s.st.Flows.LoadJobKeys(ctx, r.key.ctx, keys)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j != nil && j.Status.Terminal() && !r.ended {
			if err := s.settle(ctx, r, j); err != nil {
				return err
			}
		}
	}
	return nil
}

// dispatchStalled dispatches ready nodes and pending ones whose needs are
// all met (a crash can leave either).
func (s *Scheduler) dispatchStalled(ctx context.Context, r *flowRun) error {
	var moves []store.NodeMove
	for _, name := range r.inState(model.NodePending) {
		ok := true
		for _, need := range r.nodes[name].needs {
			ok = ok && r.satisfied(need, r.state[need])
		}
		if ok {
			moves = append(moves, store.NodeMove{Name: name, From: []string{string(model.NodePending)}, To: string(model.NodeReady)})
		}
	}
	if len(moves) > 0 {
		if _, err := s.apply(ctx, r, store.FlowStep{Moves: moves}); err != nil {
			return err
		}
	}
	return s.dispatch(ctx, r, r.inState(model.NodeReady))
}
