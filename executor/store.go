package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Store is what this package needs of the store: one interface per concern
// of it (the agent hands it the store's concern types, tests too).
type Store struct {
	Jobs     JobStore
	Queues   QueueStore
	Flows    FlowStore
	Registry RegistryStore
	Logs     LogStore
}

// complete reports whether every part is set.
func (s Store) complete() bool {
	return s.Jobs != nil && s.Queues != nil && s.Flows != nil && s.Registry != nil && s.Logs != nil
}

// JobStore is the part of the store's job records this package uses.
type JobStore interface {
	CompleteJob(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash) error
	EndAttempt(ctx context.Context, ctxID uint64, jobKey string, attempt int64, why string) (bool, error)
	ExternalWorker(ctx context.Context, ctxID uint64, typ string) (bool, error)
	LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
	RequeueJob(ctx context.Context, ctxID uint64, key string, scriptType string, attempt int64, fields model.Hash) (int64, error)
}

// QueueStore is the part of the store's queues (claims, leases, dead letters) this package uses.
type QueueStore interface {
	ClaimJob(ctx context.Context, ctxID uint64, runnerID string, types []string, lease time.Duration, reject bool) (*store.Claim, error)
	CompleteAndClaim(ctx context.Context, ctxID uint64, l store.Lease, runnerID string, status model.JobStatus, fields model.Hash, types []string, lease time.Duration) (cl *store.Claim, claimErr error, err error)
	CompleteLeased(ctx context.Context, ctxID uint64, l store.Lease, listOwner string, status model.JobStatus, fields model.Hash) error
	DropProcessing(ctx context.Context, ctxID uint64, runnerID string, jobKey string) error
	EnableQueueEvents(ctx context.Context) (bool, error)
	ExpiredLeases(ctx context.Context, ctxID uint64, now time.Time, limit int64) ([]store.Lease, error)
	HeroDrop(ctx context.Context, worker string, id string) error
	HeroFinish(ctx context.Context, worker string, id string, fields model.Hash, reply string) error
	HeroLoad(ctx context.Context, id string) (model.Hash, error)
	HeroNext(ctx context.Context, worker string, wait time.Duration) (string, error)
	HeroNextStop(ctx context.Context, worker string, wait time.Duration) (string, error)
	HeroProcessing(ctx context.Context, worker string) ([]string, error)
	HeroPutBack(ctx context.Context, worker string, id string) error
	HeroTakeQueued(ctx context.Context, worker string, id string) (bool, error)
	HeroUpdate(ctx context.Context, id string, fields model.Hash) error
	KeyedRepair(ctx context.Context, ctxID uint64) (int, error)
	LeaseOf(ctx context.Context, ctxID uint64, jobKey string) (store.Lease, error)
	MarkStop(ctx context.Context, ctxID uint64, jobKey string) (store.StopInfo, error)
	ProcessingJobs(ctx context.Context, ctxID uint64, runnerID string) ([]string, error)
	PushDeadLetter(ctx context.Context, ctxID uint64, d store.DeadLetter) error
	QueueTypes(ctx context.Context, ctxID uint64) ([]string, error)
	ReleaseLease(ctx context.Context, ctxID uint64, l store.Lease, listOwner string) error
	RenewLeases(ctx context.Context, ctxID uint64, runnerID string, held []store.Held, lease time.Duration) (lost []store.Held, stopped []string, err error)
	StopRequested(ctx context.Context, ctxID uint64, jobKey string, attempt int64) (bool, error)
	SubscribeRunnerEvents(ctx context.Context, fn func(store.RunnerEvent)) (*store.RunnerEvents, error)
	TakeLease(ctx context.Context, ctxID uint64, l store.Lease, newOwner string, lease time.Duration, onlyExpired bool) (store.Lease, bool, error)
	TakeQueued(ctx context.Context, ctxID uint64, jobKey string, scriptType string, runnerID string, attempt int64, lease time.Duration) (store.Lease, bool, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	LoadFlow(ctx context.Context, ctxID uint64, id uint64) (*model.Flow, error)
}

// RegistryStore is the part of the store's registry (contexts, actors, runners, peers) this package uses.
type RegistryStore interface {
	CheckContextID(id uint64) error
	ListContexts(ctx context.Context) ([]*model.Context, error)
	LoadContext(ctx context.Context, id uint64) (*model.Context, error)
}

// LogStore is the part of the store's job logs this package uses.
type LogStore interface {
	AppendLogLines(ctx context.Context, ctxID uint64, jobKey string, lines []store.LogLine, max int) error
}
