package control

import (
	"context"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

func (h *Handlers) registerScheduleMethods() {
	api.Register(h.table, "flow.schedule.add", "Install the `schedule:` of a flow file {file_content, file_name, base_dir, context}: "+
		"this agent starts a run of the flow at each tick (catch_up, overlap as the file says). "+
		"A schedule is named after its flow; adding one of the same name replaces it.", h.scheduleAdd)
	api.Register(h.table, "flow.schedule.list", "List the schedules of a context (context 0 or none: every context of this agent).",
		h.scheduleList)
	api.Register(h.table, "flow.schedule.pause", "Stop a schedule from firing until flow.schedule.resume.",
		func(ctx context.Context, p wire.ScheduleRef) (*wire.ScheduleView, error) {
			if err := checkScheduleRef(p); err != nil {
				return nil, err
			}
			v, err := h.Sched.PauseSchedule(ctx, p.Context, p.Name)
			return scheduleView(v), err
		})
	api.Register(h.table, "flow.schedule.resume", "Make a paused schedule fire again from its next tick (missed ticks are not caught up).",
		func(ctx context.Context, p wire.ScheduleRef) (*wire.ScheduleView, error) {
			if err := checkScheduleRef(p); err != nil {
				return nil, err
			}
			v, err := h.Sched.ResumeSchedule(ctx, p.Context, p.Name)
			return scheduleView(v), err
		})
	api.Register(h.table, "flow.schedule.remove", "Delete a schedule; the runs it started stay.",
		func(ctx context.Context, p wire.ScheduleRef) (map[string]bool, error) {
			if err := checkScheduleRef(p); err != nil {
				return nil, err
			}
			if err := h.Sched.RemoveSchedule(ctx, p.Context, p.Name); err != nil {
				return nil, err
			}
			return map[string]bool{"removed": true}, nil
		})
}

func checkScheduleRef(p wire.ScheduleRef) error {
	switch {
	case p.Context == 0:
		return api.InvalidParams("context", "required: the context id")
	case p.Name == "":
		return api.InvalidParams("name", "required: the schedule's (its flow's) name")
	}
	return nil
}

func (h *Handlers) scheduleAdd(ctx context.Context, p wire.ScheduleAddParams) (*wire.ScheduleView, error) {
	f, err := h.installable(ctx, flowFileParams(p), func(f *flowfile.File) bool { return f.Schedule != nil },
		scheduler.ErrNoSchedule)
	if err != nil {
		return nil, err
	}
	v, err := h.Sched.AddSchedule(ctx, f, h.Self.ID)
	return scheduleView(v), err
}

func (h *Handlers) scheduleList(ctx context.Context, p wire.ScheduleListParams) ([]*wire.ScheduleView, error) {
	ids := []uint64{p.Context}
	if p.Context == 0 {
		var err error
		if ids, err = h.Store.Registry.ContextIDs(ctx); err != nil {
			return nil, err
		}
	}
	out := []*scheduler.ScheduleView{}
	for _, id := range ids {
		l, err := h.Sched.Schedules(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, l...)
	}
	return scheduleViews(out), nil
}
