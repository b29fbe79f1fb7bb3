package control

import (
	"context"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// maxDelay bounds how far ahead a job may be held back.
const maxDelay = 366 * 24 * time.Hour

// checkJobAt checks run_at and delay: at most one, not negative, not more
// than a year ahead.
func checkJobAt(p wire.JobRunParams) error {
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
func runAt(p wire.JobRunParams, now time.Time) (time.Time, bool) {
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
		return h.Store.Jobs.SaveJob(ctx, j)
	}
	_, err := h.Store.Timing.EnqueueJobAt(ctx, j, at, time.Now())
	return err
}

// submitRemoteAt records a job for another agent that must not start
// before at: job and message are saved here now, and the message goes on
// msg_out when due (store.SendAt), where the bridge sends it as it sends
// any client's message. The job carries run_at, so the agent that runs it
// also holds it back should it arrive early (a clock behind).
func (h *Handlers) submitRemoteAt(ctx context.Context, p JobRunParams, at time.Time) (*wire.JobView, error) {
	dst := "" // to any: the bridge routes it by type when it is sent
	if p.To != wire.ToAny {
		id, err := peer.Decode(p.To)
		if err != nil {
			return nil, api.InvalidParams("to", "%q is neither self, any nor a peer ID: %v", p.To, err)
		}
		dst = id.String()
	}
	if h.Draining() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not sending new jobs")
	}
	origin, err := h.originContext(ctx, p.Context)
	if err != nil {
		return nil, err
	}
	ids, err := h.Store.Jobs.NextIDs(ctx, origin, "job", "message")
	if err != nil {
		return nil, err
	}
	j := &model.RunnerJob{ID: ids[0], CallerID: h.Self.ID, ContextID: origin, Name: p.Name, Script: p.Script,
		ScriptType: p.Type, Timeout: p.Timeout, Retries: p.Retries, EnvVars: p.Env, MemoryMB: p.MemoryMB, CPU: p.CPU,
		Status: model.JobDispatched, Attempt: 1, Runner: dst, Extra: model.Hash{store.RunAtField: store.FormatRunAt(at)}}
	m := &model.Message{ID: ids[1], CallerID: j.CallerID, ContextID: p.Context, MessageType: model.MsgTypeJob,
		Status: model.MsgDispatched, Dst: dst, Timeout: int64(h.Cfg.Bus.Timeout / time.Second)}
	j.SetMessageKey(store.MessageKey(m.CallerID, m.ID))
	j.SetTraceID(p.trace)
	j.SetNetwork(p.Network)
	j.SetConcurrency(p.Concurrency())
	m.SetTraceID(p.trace)
	m.Job = []*model.RunnerJob{j}
	if err := h.Store.Timing.SendAt(ctx, origin, j, m, at, time.Now()); err != nil {
		return nil, err
	}
	return jobView(j), nil
}
