package starters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Schedules starts the runs of flow files with a `schedule:`: each tick
// of a context's schedules, as its timers fire (FireSchedules), starts at
// most one run through the engine.
type Schedules struct {
	eng Engine
	st  ScheduleStore
	log *slog.Logger
	now func() time.Time
}

// NewSchedules returns the cron starter over eng and st; now is the clock.
func NewSchedules(eng Engine, st ScheduleStore, log *slog.Logger, now func() time.Time) *Schedules {
	return &Schedules{eng: eng, st: st, log: log, now: now}
}

// ErrNoSchedule: the flow file has no `schedule:`.
var ErrNoSchedule = errors.New("the flow file has no schedule: add `schedule: '0 3 * * *'` (or @every 5m, …)")

// ScheduleView is a flow schedule as flow.schedule.* show it. Times are
// unix seconds.
type ScheduleView struct {
	Name      string `json:"name"`
	Context   uint64 `json:"context"`
	Cron      string `json:"cron"`
	TimeZone  string `json:"timezone,omitempty"`
	CatchUp   string `json:"catch_up"`
	Overlap   string `json:"overlap"`
	Paused    bool   `json:"paused"`
	NextTick  int64  `json:"next_tick,omitempty"` // when it fires next (none while paused)
	LastTick  int64  `json:"last_tick,omitempty"` // the last tick handled (run or skipped)
	LastFlow  uint64 `json:"last_flow,omitempty"` // the flow id of the last run
	Runs      int64  `json:"runs"`
	Skipped   int64  `json:"skipped"` // ticks missed or skipped for an overlap
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}

// AddSchedule stores f's schedule in f.Context, keyed by the flow's name
// (adding a schedule of that name again replaces it, keeping what it
// fired): from the next tick on, this agent's timers start a run of the
// flow as caller.
func (s *Schedules) AddSchedule(ctx context.Context, f *flowfile.File, caller uint64) (*ScheduleView, error) {
	if f.Schedule == nil {
		return nil, ErrNoSchedule
	}
	sched, err := f.Schedule.Schedule()
	if err != nil {
		return nil, fmt.Errorf("starters.AddSchedule: %w", err)
	}
	flow, err := json.Marshal(f)
	if err != nil {
		return nil, fmt.Errorf("starters.AddSchedule: %w", err)
	}
	sp := f.Schedule
	h := model.Hash{"flow": string(flow), "cron": sp.Cron, "timezone": sp.TimeZone, "catch_up": sp.CatchUp,
		"overlap": sp.Overlap, "caller_id": strconv.FormatUint(caller, 10), "paused": "false"}
	next := sched.Next(s.now())
	if err := s.st.SaveSchedule(ctx, f.Context, f.Name, h, next); err != nil {
		return nil, fmt.Errorf("starters.AddSchedule: %w", err)
	}
	s.log.Info("schedule added", "context", f.Context, "name", f.Name, "cron", sp.Cron, "next", next)
	return s.Schedule(ctx, f.Context, f.Name)
}

// Schedule shows one schedule.
func (s *Schedules) Schedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	h, err := s.st.LoadSchedule(ctx, ctxID, name)
	if err != nil {
		return nil, err
	}
	return scheduleView(ctxID, h), nil
}

// Schedules lists a context's schedules by name.
func (s *Schedules) Schedules(ctx context.Context, ctxID uint64) ([]*ScheduleView, error) {
	hs, err := s.st.ListSchedules(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	out := make([]*ScheduleView, 0, len(hs))
	for _, h := range hs {
		out = append(out, scheduleView(ctxID, h))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// PauseSchedule stops a schedule from firing until ResumeSchedule.
func (s *Schedules) PauseSchedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	if err := s.st.PauseSchedule(ctx, ctxID, name); err != nil {
		return nil, err
	}
	return s.Schedule(ctx, ctxID, name)
}

// ResumeSchedule makes a paused schedule fire again from its next tick
// after now: what it missed while paused is not caught up.
func (s *Schedules) ResumeSchedule(ctx context.Context, ctxID uint64, name string) (*ScheduleView, error) {
	h, err := s.st.LoadSchedule(ctx, ctxID, name)
	if err != nil {
		return nil, err
	}
	sp := flowfile.ScheduleSpec{Cron: h["cron"], TimeZone: h["timezone"]}
	sched, err := sp.Schedule()
	if err != nil {
		return nil, fmt.Errorf("starters.ResumeSchedule: %w", err)
	}
	if err := s.st.ResumeSchedule(ctx, ctxID, name, sched.Next(s.now())); err != nil {
		return nil, err
	}
	return s.Schedule(ctx, ctxID, name)
}

// RemoveSchedule deletes a schedule; the runs it started stay.
func (s *Schedules) RemoveSchedule(ctx context.Context, ctxID uint64, name string) error {
	return s.st.RemoveSchedule(ctx, ctxID, name)
}

func scheduleView(ctxID uint64, h model.Hash) *ScheduleView {
	sec := func(f string) int64 { return atoi(h[f]) / 1000 }
	v := &ScheduleView{Name: h["name"], Context: ctxID, Cron: h["cron"], TimeZone: h["timezone"],
		CatchUp: h["catch_up"], Overlap: h["overlap"], Paused: h["paused"] == "true",
		LastTick: sec("last_tick"), LastFlow: uint64(atoi(h["last_flow"])), Runs: atoi(h["runs"]),
		Skipped: atoi(h["skipped"]), CreatedAt: atoi(h["created_at"]), UpdatedAt: atoi(h["updated_at"])}
	if !v.Paused {
		v.NextTick = sec("next_tick")
	}
	return v
}
