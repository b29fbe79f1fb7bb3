package scheduler

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// attempt is one planned dispatch of a node.
type attempt struct {
	n      *node
	base   *model.RunnerJob // the job as stored now
	rt     route
	fields model.Hash // written on the new attempt, after the rest (error, extra fields); nil: none
}

// dispatch hands the named ready nodes to runners, in one round trip
// (caller holds r.mu).
func (s *Scheduler) dispatch(ctx context.Context, r *flowRun, names []string) error {
	return s.stepAndDispatch(ctx, r, nil, names)
}

// stepAndDispatch applies step (when not nil) and dispatches the named
// nodes, which the step makes ready, in the same round trip.
func (s *Scheduler) stepAndDispatch(ctx context.Context, r *flowRun, step *store.FlowStep, names []string) error {
	plans := make([]attempt, len(names))
	for i, name := range names {
		n := r.nodes[name]
		plans[i] = attempt{n: n, base: n.job, rt: s.route(ctx, r, n, nil)}
	}
	return s.send(ctx, r, step, plans, []string{string(model.NodeReady)})
}

// send applies step (when not nil), then writes the planned attempts
// (guarded on the node states given and each base job's attempt), and
// records what happened in the cache.
func (s *Scheduler) send(ctx context.Context, r *flowRun, step *store.FlowStep, plans []attempt, from []string) error {
	if step == nil && len(plans) == 0 {
		return nil
	}
	ds, err := s.build(ctx, r, plans, from)
	if err != nil {
		return err
	}
	applied, moved, oks, err := s.st.Flows.StepAndDispatch(ctx, r.key.ctx, r.key.id, step, ds)
	if err != nil {
		return fmt.Errorf("flow %d: %w", r.key.id, err)
	}
	if step != nil {
		if !applied {
			return errStale
		}
		r.applyMoves(step.Moves, moved)
	}
	for i, ok := range oks {
		if !ok {
			err = errStale
			continue
		}
		if plans[i].rt.local {
			s.sent(r, plans[i].n.name, nil) // queued here, directly or through msg_out
			continue
		}
		s.sent(r, plans[i].n.name, ds[i].Msg)
	}
	return err
}

// sent records a dispatched node (caller holds r.mu).
func (s *Scheduler) sent(r *flowRun, name string, m *model.Message) {
	r.state[name] = model.NodeDispatched
	if m != nil {
		r.remote[name] = &remoteTrack{peer: m.Dst, msgKey: store.MessageKey(m.CallerID, m.ID)}
	}
}

// build turns plans into store dispatches, allocating message ids.
func (s *Scheduler) build(ctx context.Context, r *flowRun, plans []attempt, from []string) ([]store.FlowDispatch, error) {
	remote := 0
	for _, p := range plans {
		if s.viaMessage(p) {
			remote++
		}
	}
	var msgID uint64
	if remote > 0 {
		first, err := s.st.Flows.ReserveIDs(ctx, r.key.ctx, "message", remote)
		if err != nil {
			return nil, err
		}
		msgID = first
	}
	out := make([]store.FlowDispatch, len(plans))
	for i, p := range plans {
		j := s.nextAttempt(r, p)
		out[i] = store.FlowDispatch{FlowID: r.key.id, Node: p.n.name, NodeStates: from, Attempt: p.base.Attempt, Job: j}
		switch {
		case !p.rt.local:
			out[i].Msg = s.message(r, j, p.rt.dst, msgID)
			j.Extra[fMessage] = store.MessageKey(r.caller, msgID)
			msgID++
		case s.viaMessage(p): // a seed flow's job for this agent: the bridge queues it here
			out[i].Msg = s.message(r, j, s.cfg.Self, msgID)
			msgID++
		}
	}
	return out, nil
}

// viaMessage reports whether attempt p goes as a Message on msg_out: to
// another agent, or a job of a flow made the seed way
// (model.ExtraDispatchVia) for this agent, when it knows its peer ID.
func (s *Scheduler) viaMessage(p attempt) bool {
	return !p.rt.local || s.cfg.Self != "" && p.base.Extra[model.ExtraDispatchVia] == model.DispatchViaMsgOut
}

// nextAttempt is the job as its next attempt is written.
func (s *Scheduler) nextAttempt(r *flowRun, p attempt) *model.RunnerJob {
	j := *p.base
	j.Attempt = p.base.Attempt + 1
	j.Status = model.JobDispatched
	j.Error, j.Result = "", map[string]string{}
	j.EnvVars = r.jobEnv(p.n, p.base.EnvVars)
	j.Runner = p.rt.runner
	j.Extra = maps.Clone(p.base.Extra)
	if j.Extra == nil {
		j.Extra = model.Hash{}
	}
	j.Extra[fPin] = p.n.pin
	j.Extra[fDispatchedAt] = strconv.FormatInt(s.cfg.Now().Unix(), 10)
	startAt(&j, s.cfg.Now())
	delete(j.Extra, fMessage)
	for k, v := range p.fields {
		if k == "error" {
			j.Error = v
		} else {
			j.Extra[k] = v
		}
	}
	s.withInputs(r, p.n, &j, cmp.Or(p.rt.dst, peerOf(p.rt.runner))) // files between jobs (files.go)
	return &j
}

// message wraps job j for the bridge: same context id as the flow, dst the
// target peer ("" = route by the job's runner or type).
func (s *Scheduler) message(r *flowRun, j *model.RunnerJob, dst string, id uint64) *model.Message {
	timeout := j.Timeout
	if timeout == 0 && !r.deadline.IsZero() {
		timeout = max(1, int64(r.deadline.Sub(s.cfg.Now())/time.Second))
	}
	return &model.Message{ID: id, CallerID: r.caller, ContextID: r.key.ctx, MessageType: model.MsgTypeJob,
		Timeout: timeout, TimeoutResult: timeout, Job: []*model.RunnerJob{j}, Dst: dst,
		Status: model.MsgDispatched, Extra: model.Hash{model.ExtraMessageFlowID: strconv.FormatUint(r.key.id, 10)}}
}
