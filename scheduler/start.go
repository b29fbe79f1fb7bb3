package scheduler

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// StartFlow starts a created flow: status started, the flow timeout armed,
// and every job without needs dispatched. Its context's event loop is
// started if it was not served yet.
func (s *Scheduler) StartFlow(ctx context.Context, ctxID, flowID uint64) error {
	if !s.running() {
		return fmt.Errorf("scheduler.StartFlow: %w", ErrClosed)
	}
	s.ensureLoop(ctxID)
	err := s.withRun(ctx, ctxID, flowID, func(r *flowRun) error { return s.start(ctx, r) })
	if err != nil {
		return fmt.Errorf("scheduler.StartFlow %d: %w", flowID, err)
	}
	return nil
}

func (s *Scheduler) start(ctx context.Context, r *flowRun) error {
	if r.status != model.FlowDispatched {
		return stateError("flow %d is %s; only a created flow can start", r.key.id, r.status)
	}
	now := s.cfg.Now()
	fields := s.touch("status", string(model.FlowStarted), fStartedAt, strconv.FormatInt(now.Unix(), 10))
	if r.timeout > 0 {
		r.deadline = now.Add(r.timeout)
		fields[fDeadline] = strconv.FormatInt(r.deadline.UnixMilli(), 10)
	}
	var roots []string
	var moves []store.NodeMove
	for _, name := range r.order {
		if r.state[name] == model.NodePending && r.needsMet(name) { // a rerun's reused jobs are met
			roots = append(roots, name)
			moves = append(moves, store.NodeMove{Name: name, From: []string{string(model.NodePending)}, To: string(model.NodeReady)})
		}
	}
	step := store.FlowStep{FlowStatus: []string{string(model.FlowDispatched)}, Moves: moves, Flow: fields, Active: "add"}
	ok, err := s.apply(ctx, r, step)
	if err != nil {
		return err
	}
	if !ok {
		return stateError("flow %d was started already", r.key.id)
	}
	r.status = model.FlowStarted
	s.armTimer(r)
	s.log.Info("flow started", "context", r.key.ctx, "flow", r.key.id, "roots", len(roots), "trace_id", r.trace)
	return s.dispatch(ctx, r, roots)
}

// needsMet reports whether every need of node name lets it run.
func (r *flowRun) needsMet(name string) bool {
	for _, need := range r.nodes[name].needs {
		if !r.satisfied(need, r.state[need]) {
			return false
		}
	}
	return true
}

// armTimer sets the flow-level timeout from r.deadline (caller holds mu).
func (s *Scheduler) armTimer(r *flowRun) {
	if r.timeout <= 0 || r.deadline.IsZero() || r.timer != nil {
		return
	}
	key := r.key
	r.timer = time.AfterFunc(r.deadline.Sub(s.cfg.Now()), func() {
		s.spawn(func(ctx context.Context) { s.onTimeout(ctx, key) })
	})
}

func (s *Scheduler) onTimeout(ctx context.Context, k runKey) {
	err := s.withRun(ctx, k.ctx, k.id, func(r *flowRun) error {
		if r.ended || r.compensating {
			return nil
		}
		return s.abort(ctx, r, "timeout after "+r.timeout.String())
	})
	if err != nil && ctx.Err() == nil {
		s.log.Warn("flow timeout", "context", k.ctx, "flow", k.id, "err", err)
	}
}

// Cancel stops the flow's running jobs, cancels the rest and ends it with
// error "cancelled". A flow that has ended gives ErrEnded.
func (s *Scheduler) Cancel(ctx context.Context, ctxID, flowID uint64) error {
	err := s.withRun(ctx, ctxID, flowID, func(r *flowRun) error {
		if r.ended {
			return ErrEnded
		}
		if r.compensating {
			return stateError("flow %d is compensating: its compensations run to their end", r.key.id)
		}
		return s.abort(ctx, r, "cancelled")
	})
	if err != nil {
		return fmt.Errorf("scheduler.Cancel %d: %w", flowID, err)
	}
	return nil
}
