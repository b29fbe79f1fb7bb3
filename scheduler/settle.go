package scheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// settle applies the end of job j to its flow (caller holds r.mu). Events
// are idempotent: a node that is not in flight any more ignores them.
func (s *Scheduler) settle(ctx context.Context, r *flowRun, j *model.RunnerJob) error {
	n := r.nodes[j.Name]
	if n == nil || n.key != store.JobKey(j.CallerID, j.ID) {
		s.log.Warn("job names no node of its flow", "flow", r.key.id, "job", j.Name)
		return nil
	}
	if r.ended || !r.state[n.name].InFlight() {
		return nil
	}
	if n.comp != "" {
		return s.compSettled(ctx, r, n, j)
	}
	switch {
	case j.Status == model.JobFinished:
		return s.passed(ctx, r, n, j, model.NodeCompleted)
	case n.cont:
		return s.passed(ctx, r, n, j, model.NodeFailed)
	}
	return s.failed(ctx, r, n, j)
}

// passed ends a node whose dependents may run (completed, or failed with
// continue_on_error): record its result, make ready what it unblocks and
// dispatch that — one round trip.
func (s *Scheduler) passed(ctx context.Context, r *flowRun, n *node, j *model.RunnerJob, to model.NodeState) error {
	ready := r.readyAfter(n.name, to)
	moves := []store.NodeMove{{Name: n.name, From: inFlight, To: string(to)}}
	for _, d := range ready {
		moves = append(moves, store.NodeMove{Name: d, From: []string{string(model.NodePending)}, To: string(model.NodeReady)})
	}
	step := store.FlowStep{Node: n.name, NodeStates: inFlight, Moves: moves,
		Results: prefixed(n.name, j.Result), Flow: s.touch()}
	r.results[n.name] = j.Result // the ready jobs' env reads it
	r.madeFiles(n.name, j)       // and their inputs (files.go)
	if err := s.stepAndDispatch(ctx, r, &step, ready); err != nil {
		return err
	}
	return s.maybeFinish(ctx, r)
}

// failed ends a node whose failure fails the flow: its dependents are
// cancelled; with on_failure stop everything else in flight is stopped.
func (s *Scheduler) failed(ctx context.Context, r *flowRun, n *node, j *model.RunnerJob) error {
	why := j.Error
	if why == "" {
		why = "ended with status " + string(j.Status)
	}
	r.setFatal(fmt.Sprintf("job %q failed: %s", n.name, why))
	moves := []store.NodeMove{{Name: n.name, From: inFlight, To: string(model.NodeFailed)}}
	victims := r.descendants(n.name)
	if r.onFailure == flowfile.OnFailureStop {
		victims = r.order
	}
	var stops []string
	for _, v := range victims {
		if v == n.name || r.state[v].Terminal() {
			continue
		}
		moves = append(moves, store.NodeMove{Name: v, From: open, To: string(model.NodeCancelled)})
		if r.state[v].InFlight() {
			stops = append(stops, v)
		}
	}
	step := store.FlowStep{Node: n.name, NodeStates: inFlight, Moves: moves,
		Results: prefixed(n.name, j.Result), Flow: s.touch(fError, r.fatal)}
	if err := s.applyGuarded(ctx, r, step); err != nil {
		return err
	}
	r.results[n.name] = j.Result
	r.stops = append(r.stops, stops...)
	return s.maybeFinish(ctx, r)
}

// abort stops what is in flight, cancels the rest and ends the flow with
// reason (cancel, timeout).
func (s *Scheduler) abort(ctx context.Context, r *flowRun, reason string) error {
	r.setFatal(reason)
	var moves []store.NodeMove
	var stops []string
	for _, name := range r.order {
		if st := r.state[name]; !st.Terminal() {
			moves = append(moves, store.NodeMove{Name: name, From: open, To: string(model.NodeCancelled)})
			if st.InFlight() {
				stops = append(stops, name)
			}
		}
	}
	step := store.FlowStep{Moves: moves, Flow: s.touch(fError, r.fatal)}
	if _, err := s.apply(ctx, r, step); err != nil {
		return err
	}
	r.stops = append(r.stops, stops...)
	return s.finish(ctx, r)
}

// setFatal records the first reason the flow fails.
func (r *flowRun) setFatal(why string) {
	if r.fatal == "" {
		r.fatal = why
	}
}

// maybeFinish ends the flow when every node has ended.
func (s *Scheduler) maybeFinish(ctx context.Context, r *flowRun) error {
	if r.ended || !r.allEnded() {
		return nil
	}
	return s.finish(ctx, r)
}

// finish writes the flow's end: status, result (a copy of flow_results),
// error; it leaves the active set.
func (s *Scheduler) finish(ctx context.Context, r *flowRun) error {
	if r.fatal != "" {
		if busy, err := s.compensate(ctx, r); busy || err != nil {
			return err
		}
	}
	results, err := s.st.Flows.FlowResults(ctx, r.key.ctx, r.key.id)
	if err != nil {
		return err
	}
	status := model.FlowFinished
	if r.fatal != "" {
		status = model.FlowError
	}
	fields := s.touch("status", string(status), "result", jsonMap(results), fError, r.fatal,
		fEndedAt, strconv.FormatInt(s.cfg.Now().Unix(), 10))
	maps.Copy(fields, r.compEnd)
	step := store.FlowStep{FlowStatus: []string{string(model.FlowDispatched), string(model.FlowStarted)},
		Flow: fields, Active: "remove"}
	if _, err := s.apply(ctx, r, step); err != nil {
		return err
	}
	r.ended, r.status = true, status
	if status == model.FlowError {
		s.endWaiting(ctx, r)
	}
	if r.timer != nil {
		r.timer.Stop()
	}
	s.log.Info("flow ended", "context", r.key.ctx, "flow", r.key.id, "status", status, "error", r.fatal,
		"compensation", r.compEnd[fCompensation], "trace_id", r.trace)
	s.flowEnded(ctx, r.key.ctx, r.key.id, status, r.fatal) // for on: {flow_finished: …} (events_ended.go)
	return nil
}

// apply runs a step on the store and mirrors its moves in the cache.
func (s *Scheduler) apply(ctx context.Context, r *flowRun, step store.FlowStep) (bool, error) {
	ok, moved, err := s.st.Flows.ApplyFlowStep(ctx, r.key.ctx, r.key.id, step)
	if err != nil {
		return false, fmt.Errorf("flow %d: %w", r.key.id, err)
	}
	if ok {
		r.applyMoves(step.Moves, moved)
	}
	return ok, nil
}

// applyGuarded is apply for steps whose guard the cache said holds: a
// failed guard means the cache is stale, and errStale makes the caller
// reload the flow and try again.
func (s *Scheduler) applyGuarded(ctx context.Context, r *flowRun, step store.FlowStep) error {
	ok, err := s.apply(ctx, r, step)
	if err == nil && !ok {
		err = errStale
	}
	return err
}

// touch returns flow fields to write: updated_at plus the pairs given.
func (s *Scheduler) touch(kv ...string) model.Hash {
	h := model.Hash{"updated_at": strconv.FormatInt(s.cfg.Now().Unix(), 10)}
	for i := 0; i+1 < len(kv); i += 2 {
		h[kv[i]] = kv[i+1]
	}
	return h
}

// prefixed maps a job's result to flow result fields "<job>.<key>".
func prefixed(job string, result map[string]string) map[string]string {
	out := make(map[string]string, len(result))
	for k, v := range result {
		out[job+"."+k] = v
	}
	return out
}

// jsonMap encodes a result map for the flow's `result` field.
func jsonMap(m map[string]string) string {
	if m == nil {
		m = map[string]string{}
	}
	b, _ := json.Marshal(m) // a map of strings always encodes
	return string(b)
}
