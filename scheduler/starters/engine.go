package starters

import (
	"context"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Engine is what the starters ask of the flow engine (package scheduler):
// make a run of a flow file, start it, cancel one, read where one is, and
// handle the events of a context.
type Engine interface {
	// CreateRun stores a run of f as caller, not started; mark, when not
	// nil, changes the flow and its jobs before they are written.
	CreateRun(ctx context.Context, f *flowfile.File, caller uint64,
		mark func(*model.Flow, []*model.RunnerJob)) (uint64, error)
	// StartRun starts a created run.
	StartRun(ctx context.Context, ctxID, id uint64) error
	// CancelRun stops a run; one that has ended already is no error.
	CancelRun(ctx context.Context, ctxID, id uint64) error
	// RunStatus is where a run is (store.ErrNotFound: no such run).
	RunStatus(ctx context.Context, ctxID, id uint64) (model.FlowStatus, error)
	// Serve makes the engine read the events of context ctxID.
	Serve(ctxID uint64)
}

// ScheduleStore is what Schedules reads and writes of the store.
type ScheduleStore interface {
	SaveSchedule(ctx context.Context, ctxID uint64, name string, h model.Hash, next time.Time) error
	LoadSchedule(ctx context.Context, ctxID uint64, name string) (model.Hash, error)
	ListSchedules(ctx context.Context, ctxID uint64) ([]model.Hash, error)
	DueSchedules(ctx context.Context, ctxID uint64, now time.Time) ([]store.DueSchedule, time.Time, error)
	ClaimTick(ctx context.Context, ctxID uint64, name string, due, tick, next time.Time, counter string, skippedMore int64) (bool, error)
	SetScheduleFields(ctx context.Context, ctxID uint64, name string, h model.Hash) error
	PauseSchedule(ctx context.Context, ctxID uint64, name string) error
	ResumeSchedule(ctx context.Context, ctxID uint64, name string, next time.Time) error
	RemoveSchedule(ctx context.Context, ctxID uint64, name string) error
}

// TriggerStore is what Triggers reads and writes of the store's events.
type TriggerStore interface {
	SaveTrigger(ctx context.Context, ctxID uint64, name, t string) error
	Triggers(ctx context.Context, ctxID uint64) (map[string]string, error)
	DeleteTrigger(ctx context.Context, ctxID uint64, name string) error
	ClaimEventRun(ctx context.Context, ctxID uint64, eventID, trigger string) (string, error)
	SetEventRun(ctx context.Context, ctxID uint64, eventID, trigger, flowID string) error
}

// FlowLister is what Triggers reads of the store's flows: the runs an
// event started, found again after a crash.
type FlowLister interface {
	ListFlows(ctx context.Context, ctxID uint64) ([]*model.Flow, error)
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
