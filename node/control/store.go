package control

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
	Bus      BusStore
	Flows    FlowStore
	Timing   TimingStore
	Events   EventStore
	Registry RegistryStore
	Logs     LogStore
	Server   Pinger // node.health asks it
}

// Pinger checks the store's server answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// JobStore is the part of the store's job records this package uses.
type JobStore interface {
	ChangeStamp(ctx context.Context, ctxID uint64) string // node/ui's /ui/events
	ClaimSubmission(ctx context.Context, ctxID uint64, key string, ref string, digest string) (*store.SubmissionClaim, *store.EarlierSubmission, error)
	CreateJob(ctx context.Context, j *model.RunnerJob) error
	CreateQueuedJob(ctx context.Context, j *model.RunnerJob) error
	EnqueueJob(ctx context.Context, j *model.RunnerJob) error
	ExternalWorker(ctx context.Context, ctxID uint64, typ string) (bool, error)
	ListJobs(ctx context.Context, ctxID uint64) ([]*model.RunnerJob, error)
	LoadJob(ctx context.Context, ctxID uint64, caller uint64, id uint64) (*model.RunnerJob, error)
	LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
	NextIDs(ctx context.Context, ctxID uint64, kinds ...string) ([]uint64, error)
	RetryJob(ctx context.Context, ctxID uint64, key string, scriptType string, attempt int64) (int64, error)
	SaveJob(ctx context.Context, j *model.RunnerJob) error
	Timeline(ctx context.Context, ctxID uint64, jobKey string) ([]store.TimelineEntry, error)
	WaitJob(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
	WaitNewJob(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
}

// QueueStore is the part of the store's queues (claims, leases, dead letters) this package uses.
type QueueStore interface {
	DeadLetters(ctx context.Context, ctxID uint64, n int64) ([]store.DeadLetter, error)
	DeleteDeadLetter(ctx context.Context, ctxID uint64, key string) (int64, error)
	QueueDepths(ctx context.Context, ctxID uint64) (map[string]int64, error)
}

// BusStore is the part of the store's bus records (messages, outbox, inbound, results) this package uses.
type BusStore interface {
	CreateMessage(ctx context.Context, ctxID uint64, m *model.Message, list string) error
	ListMessages(ctx context.Context, ctxID uint64) ([]*model.Message, error)
	LoadMessage(ctx context.Context, ctxID uint64, caller uint64, id uint64) (*model.Message, error)
	LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error)
	PushMessage(ctx context.Context, ctxID uint64, m *model.Message, list string) error
	RetryMessage(ctx context.Context, ctxID uint64, key string) (string, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	AdoptFlow(ctx context.Context, ctxID uint64, flowID uint64, jobs map[string]model.Hash, nodes map[string]string) (bool, error)
	CreateFlow(ctx context.Context, f *model.Flow) error
	FlowNodes(ctx context.Context, ctxID uint64, flowID uint64) (map[string]string, error)
	LoadFlow(ctx context.Context, ctxID uint64, id uint64) (*model.Flow, error)
	LoadFlowGraph(ctx context.Context, ctxID uint64, flowID uint64) (*store.FlowGraph, error)
	LoadJobKeys(ctx context.Context, ctxID uint64, keys []string) ([]*model.RunnerJob, error)
}

// TimingStore is the part of the store's timers and schedules this package uses.
type TimingStore interface {
	EnqueueJobAt(ctx context.Context, j *model.RunnerJob, at time.Time, now time.Time) (bool, error)
	SendAt(ctx context.Context, ctxID uint64, j *model.RunnerJob, m *model.Message, at time.Time, now time.Time) error
}

// EventStore is the part of the store's events and triggers this package uses.
type EventStore interface {
	ListEvents(ctx context.Context, ctxID uint64, limit int) ([]*model.Event, error)
	PublishEvent(ctx context.Context, ctxID uint64, m *model.Message) error
}

// RegistryStore is the part of the store's registry (contexts, actors, runners, peers) this package uses.
type RegistryStore interface {
	ActorByPubkey(ctx context.Context, pubkey string) (*model.Actor, error)
	AdoptContext(ctx context.Context, c *model.Context) error
	CheckContextID(id uint64) error
	ClaimActorID(ctx context.Context, id uint64) error
	ContextIDs(ctx context.Context) ([]uint64, error)
	CreateContext(ctx context.Context, c *model.Context) error
	CreateRunner(ctx context.Context, ctxID uint64, r *model.Runner) error
	EnsureActor(ctx context.Context, pubkey string) (*model.Actor, error)
	Grant(ctx context.Context, id uint64, actor uint64, role model.Role) (*model.Context, error)
	ListActors(ctx context.Context) ([]*model.Actor, error)
	ListContexts(ctx context.Context) ([]*model.Context, error)
	ListPeers(ctx context.Context) ([]*model.Peer, error)
	ListRunners(ctx context.Context, ctxID uint64) ([]*model.Runner, error)
	LoadActor(ctx context.Context, id uint64) (*model.Actor, error)
	LoadContext(ctx context.Context, id uint64) (*model.Context, error)
	LoadRunner(ctx context.Context, ctxID uint64, id uint64) (*model.Runner, error)
	Revoke(ctx context.Context, id uint64, actor uint64, role model.Role) (*model.Context, error)
	SaveActor(ctx context.Context, a *model.Actor) error
	SaveRunner(ctx context.Context, ctxID uint64, r *model.Runner) error
	SetContextIsolation(ctx context.Context, id uint64, isolation *string, network *string) (*model.Context, error)
}

// LogStore is the part of the store's job logs this package uses.
type LogStore interface {
	FollowLogs(ctx context.Context, ctxID uint64, jobKey string, from int64, fn func(lines []string) error) (int64, error)
	ReadLogLines(ctx context.Context, ctxID uint64, jobKey string, from int64) ([]store.LogLine, error)
	ReadLogMeta(ctx context.Context, ctxID uint64, jobKey string, from int64, to int64) ([]string, error)
}
