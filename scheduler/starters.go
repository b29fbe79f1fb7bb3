package scheduler

import (
	"context"
	"errors"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
	"github.com/hyphae-run/hyphae/scheduler/starters"
)

// runs is the engine as the starters see it (starters.Engine): they start
// runs through it and reach nothing else of the scheduler.
type runs struct{ s *Scheduler }

func (r runs) CreateRun(ctx context.Context, f *flowfile.File, caller uint64,
	mark func(*model.Flow, []*model.RunnerJob)) (uint64, error) {
	var patch func(*model.Flow, []*model.RunnerJob, map[string]string)
	if mark != nil {
		patch = func(fl *model.Flow, jobs []*model.RunnerJob, _ map[string]string) { mark(fl, jobs) }
	}
	fl, err := r.s.create(ctx, f, caller, patch)
	if err != nil {
		return 0, err
	}
	return fl.ID, nil
}

func (r runs) StartRun(ctx context.Context, ctxID, id uint64) error {
	return r.s.StartFlow(ctx, ctxID, id)
}

func (r runs) CancelRun(ctx context.Context, ctxID, id uint64) error {
	if err := r.s.Cancel(ctx, ctxID, id); err != nil && !errors.Is(err, ErrEnded) {
		return err
	}
	return nil
}

func (r runs) RunStatus(ctx context.Context, ctxID, id uint64) (model.FlowStatus, error) {
	st, err := r.s.Status(ctx, ctxID, id)
	if err != nil {
		return "", err
	}
	return st.Status, nil
}

func (r runs) Serve(ctxID uint64) { r.s.ensureLoop(ctxID) }

// The starters' names node/control and the agent's timers still reach
// through the scheduler, until the wiring hands them the starters.
type (
	// ScheduleView is starters.ScheduleView.
	ScheduleView = starters.ScheduleView
	// TriggerView is starters.TriggerView.
	TriggerView = starters.TriggerView
)

var (
	// ErrNoSchedule is starters.ErrNoSchedule.
	ErrNoSchedule = starters.ErrNoSchedule
	// ErrNoTrigger is starters.ErrNoTrigger.
	ErrNoTrigger = starters.ErrNoTrigger
)

// AddSchedule is starters.Schedules.AddSchedule.
func (s *Scheduler) AddSchedule(ctx context.Context, f *flowfile.File, caller uint64) (*ScheduleView, error) {
	return s.cron.AddSchedule(ctx, f, caller)
}

// Schedule is starters.Schedules.Schedule.
func (s *Scheduler) Schedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	return s.cron.Schedule(ctx, ctxID, name)
}

// Schedules is starters.Schedules.Schedules.
func (s *Scheduler) Schedules(ctx context.Context, ctxID uint64) ([]*ScheduleView, error) {
	return s.cron.Schedules(ctx, ctxID)
}

// PauseSchedule is starters.Schedules.PauseSchedule.
func (s *Scheduler) PauseSchedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	return s.cron.PauseSchedule(ctx, ctxID, name)
}

// ResumeSchedule is starters.Schedules.ResumeSchedule.
func (s *Scheduler) ResumeSchedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	return s.cron.ResumeSchedule(ctx, ctxID, name)
}

// RemoveSchedule is starters.Schedules.RemoveSchedule.
func (s *Scheduler) RemoveSchedule(ctx context.Context, ctxID uint64, name string) error {
	return s.cron.RemoveSchedule(ctx, ctxID, name)
}

// FireSchedules is starters.Schedules.FireSchedules (a timers.Firer).
func (s *Scheduler) FireSchedules(ctx context.Context, ctxID uint64, now time.Time) (time.Time, error) {
	return s.cron.FireSchedules(ctx, ctxID, now)
}

// AddTrigger is starters.Triggers.AddTrigger.
func (s *Scheduler) AddTrigger(ctx context.Context, f *flowfile.File, caller uint64) (*TriggerView, error) {
	return s.trig.AddTrigger(ctx, f, caller)
}

// RemoveTrigger is starters.Triggers.RemoveTrigger.
func (s *Scheduler) RemoveTrigger(ctx context.Context, ctxID uint64, name string) error {
	return s.trig.RemoveTrigger(ctx, ctxID, name)
}

// Triggers is starters.Triggers.Triggers.
func (s *Scheduler) Triggers(ctx context.Context, ctxID uint64) ([]*TriggerView, error) {
	return s.trig.Triggers(ctx, ctxID)
}
