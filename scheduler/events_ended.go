package scheduler

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// The scheduler publishes, as local events of the flow's context,
// EventJobEnded when a flow job's attempt ends ({job, flow, flow_id,
// status, error}) and EventFlowFinished when a flow ends ({flow, flow_id,
// status, error}), for `on: {job_ended: …}` and `on: {flow_finished: …}`.
// Only while some trigger of the context listens for them (the starters'
// Triggers.Listens): a context without such triggers pays nothing but a
// look at a cache. Their ids are
// fixed by what ended, so publishing one twice (a jobs_done entry handled
// again after a crash) starts no second run.

// jobEnded publishes EventJobEnded for flow job j's ended attempt.
func (s *Scheduler) jobEnded(ctx context.Context, ctxID uint64, j *model.RunnerJob) {
	if !s.trig.Listens(ctx, ctxID, flowfile.EventJobEnded) {
		return
	}
	data := map[string]any{"job": j.Name, "flow_id": j.FlowID, "status": j.Status, "error": j.Error,
		"flow": s.flowName(ctx, ctxID, j.FlowID)}
	id := flowfile.EventJobEnded + "/" + store.JobKey(j.CallerID, j.ID) + "/" + strconv.FormatInt(j.Attempt, 10)
	s.emit(ctx, ctxID, flowfile.EventJobEnded, id, data)
}

// flowEnded publishes EventFlowFinished for flow id of ctxID.
func (s *Scheduler) flowEnded(ctx context.Context, ctxID, id uint64, status model.FlowStatus, why string) {
	if !s.trig.Listens(ctx, ctxID, flowfile.EventFlowFinished) {
		return
	}
	data := map[string]any{"flow": s.flowName(ctx, ctxID, id), "flow_id": id, "status": status, "error": why}
	s.emit(ctx, ctxID, flowfile.EventFlowFinished, flowfile.EventFlowFinished+"/"+strconv.FormatUint(id, 10), data)
}

func (s *Scheduler) flowName(ctx context.Context, ctxID, id uint64) string {
	f, err := s.st.Flows.LoadFlow(ctx, ctxID, id)
	if err != nil {
		return ""
	}
	return f.Name
}

// emit publishes a local event of the scheduler's own.
func (s *Scheduler) emit(ctx context.Context, ctxID uint64, name, id string, data map[string]any) {
	b, _ := json.Marshal(data)
	m := &model.Message{ContextID: ctxID, MessageType: model.MsgTypeEvent, Message: string(b),
		MessageFormatType: model.EventFormat, Extra: model.Hash{model.ExtraEventName: name, model.ExtraEventID: id}}
	if err := s.st.Events.PublishEvent(ctx, ctxID, m); err != nil {
		s.log.Warn("events: publish", "context", ctxID, "event", name, "id", id, "err", err)
	}
}
