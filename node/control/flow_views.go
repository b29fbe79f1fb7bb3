package control

import (
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
)

// The domain's views as the wire shows them: the scheduler's flow status,
// schedules and triggers, the store's dead letters, the janitor's report.
// Each wire type has the same JSON names as the type it is made from.

func flowView(st *scheduler.Status) *wire.FlowView {
	return &wire.FlowView{FlowState: flowState(st)}
}

func flowState(st *scheduler.Status) wire.FlowState {
	v := wire.FlowState{ID: st.ID, ContextID: st.ContextID, CallerID: st.CallerID, Name: st.Name, Status: st.Status,
		Error: st.Error, Result: st.Result, OnFailure: st.OnFailure, Timeout: st.Timeout, CreatedAt: st.CreatedAt,
		StartedAt: st.StartedAt, EndedAt: st.EndedAt, Progress: wire.FlowProgress(st.Progress), Version: st.Version,
		Compensation: st.Compensation, CompensationError: st.CompensationError, TraceID: st.TraceID,
		CorrelationID: st.CorrelationID, EventID: st.EventID}
	if st.Jobs != nil {
		v.Jobs = make([]wire.FlowJobState, len(st.Jobs))
	}
	for i, j := range st.Jobs {
		v.Jobs[i] = wire.FlowJobState{Name: j.Name, Key: j.Key, State: j.State, Status: j.Status, Type: j.Type,
			Runner: j.Runner, Attempt: j.Attempt, Retries: j.Retries, Duration: j.Duration, Result: j.Result,
			Error: j.Error, Needs: j.Needs, Depth: j.Depth, ContinueOnError: j.ContinueOnError, ReusedFrom: j.ReusedFrom}
		if c := j.Compensation; c != nil {
			v.Jobs[i].Compensation = &wire.CompState{Key: c.Key, State: c.State, Status: c.Status,
				Attempt: c.Attempt, Error: c.Error, Result: c.Result}
		}
	}
	return v
}

func flowSummaries(ss []scheduler.Summary) []wire.FlowSummary {
	if ss == nil {
		return nil
	}
	out := make([]wire.FlowSummary, len(ss))
	for i, s := range ss {
		out[i] = wire.FlowSummary{ID: s.ID, ContextID: s.ContextID, Name: s.Name, Status: s.Status, Error: s.Error,
			Progress: wire.FlowProgress(s.Progress), CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	}
	return out
}

func scheduleView(v *scheduler.ScheduleView) *wire.ScheduleView {
	if v == nil {
		return nil
	}
	w := wire.ScheduleView(*v)
	return &w
}

func scheduleViews(vs []*scheduler.ScheduleView) []*wire.ScheduleView {
	out := make([]*wire.ScheduleView, len(vs))
	for i, v := range vs {
		out[i] = scheduleView(v)
	}
	return out
}

func triggerView(v *scheduler.TriggerView) *wire.TriggerView {
	if v == nil {
		return nil
	}
	w := wire.TriggerView(*v)
	return &w
}

func triggerViews(vs []*scheduler.TriggerView) []*wire.TriggerView {
	if vs == nil {
		return nil
	}
	out := make([]*wire.TriggerView, len(vs))
	for i, v := range vs {
		out[i] = triggerView(v)
	}
	return out
}

func deadLetterViews(ds []store.DeadLetter) []wire.DeadLetter {
	if ds == nil {
		return nil
	}
	out := make([]wire.DeadLetter, len(ds))
	for i, d := range ds {
		out[i] = wire.DeadLetter(d)
	}
	return out
}

func pruneCounts(rs []retention.ContextReport) []wire.PruneCounts {
	if rs == nil {
		return nil
	}
	out := make([]wire.PruneCounts, len(rs))
	for i, r := range rs {
		out[i] = wire.PruneCounts(r)
	}
	return out
}
