package scheduler

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/starters"
)

// Store is what this package needs of the store: one interface per concern
// of it (the agent hands it the store's concern types, tests too).
type Store struct {
	Jobs     JobStore
	Queues   QueueStore
	Bus      BusStore
	Flows    FlowStore
	Events   EventStore
	Timing   starters.ScheduleStore
	Registry RegistryStore
}

// complete reports whether every part is set.
func (s Store) complete() bool {
	return s.Jobs != nil && s.Queues != nil && s.Bus != nil && s.Flows != nil &&
		s.Events != nil && s.Timing != nil && s.Registry != nil
}

// JobStore is the part of the store's job records this package uses.
type JobStore interface {
	CompleteJob(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash) error
	EndWaitingJobs(ctx context.Context, ctxID uint64, keys []string, reason string) (int, error)
	LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
}

// QueueStore is the part of the store's queues (claims, leases, dead letters) this package uses.
type QueueStore interface {
	PushDeadLetter(ctx context.Context, ctxID uint64, d store.DeadLetter) error
}

// BusStore is the part of the store's bus records (messages, outbox, inbound, results) this package uses.
type BusStore interface {
	Done(ctx context.Context, ctxID uint64, processing string, key string) error
	LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error)
	Requeue(ctx context.Context, ctxID uint64, processing string, list string) (int, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	AckJobDone(ctx context.Context, ctxID uint64, processing string, key string) error
	ActiveFlows(ctx context.Context, ctxID uint64) ([]uint64, error)
	ApplyFlowStep(ctx context.Context, ctxID uint64, flowID uint64, step store.FlowStep) (bool, []string, error)
	FlowNodes(ctx context.Context, ctxID uint64, flowID uint64) (map[string]string, error)
	FlowResults(ctx context.Context, ctxID uint64, flowID uint64) (map[string]string, error)
	ListFlows(ctx context.Context, ctxID uint64) ([]*model.Flow, error)
	LoadFlow(ctx context.Context, ctxID uint64, id uint64) (*model.Flow, error)
	LoadFlowGraph(ctx context.Context, ctxID uint64, flowID uint64) (*store.FlowGraph, error)
	LoadJobKeys(ctx context.Context, ctxID uint64, keys []string) ([]*model.RunnerJob, error)
	NextJobDone(ctx context.Context, ctxID uint64, processing string, block time.Duration) (string, error)
	ReserveIDs(ctx context.Context, ctxID uint64, kind string, n int) (uint64, error)
	RestoreJobsDone(ctx context.Context, ctxID uint64, processing string) (int64, error)
	SaveFlowGraph(ctx context.Context, f *model.Flow, jobs []*model.RunnerJob, nodes map[string]string) error
	StepAndDispatch(ctx context.Context, ctxID uint64, flowID uint64, step *store.FlowStep, ds []store.FlowDispatch) (applied bool, moved []string, oks []bool, err error)
}

// EventStore is the part of the store's events and triggers this package uses.
type EventStore interface {
	starters.TriggerStore
	NextEntry(ctx context.Context, ctxID uint64, list string, processing string, block time.Duration) (string, error)
	ParkWait(ctx context.Context, ctxID uint64, processing string, w store.Wait) (string, error)
	PublishEvent(ctx context.Context, ctxID uint64, m *model.Message) error
	SeeEvent(ctx context.Context, ctxID uint64, name string, corr string, key string) ([]string, error)
	Unpark(ctx context.Context, ctxID uint64, name string, corr string, member string) error
	WaitFields(ctx context.Context, ctxID uint64, name string) ([]string, error)
}

// RegistryStore is the part of the store's registry (contexts, actors, runners, peers) this package uses.
type RegistryStore interface {
	CheckContextID(id uint64) error
	ListContexts(ctx context.Context) ([]*model.Context, error)
	ListRunners(ctx context.Context, ctxID uint64) ([]*model.Runner, error)
	LoadRunner(ctx context.Context, ctxID uint64, id uint64) (*model.Runner, error)
}
