package bridge

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
	Events   EventStore
	Registry RegistryStore
	Logs     LogStore
}

// complete reports whether every part is set.
func (s Store) complete() bool {
	return s.Jobs != nil && s.Queues != nil && s.Bus != nil && s.Flows != nil &&
		s.Events != nil && s.Registry != nil && s.Logs != nil
}

// JobStore is the part of the store's job records this package uses.
type JobStore interface {
	ClearUnreachable(ctx context.Context, ctxID uint64, key string, attempt int64) error
	CompleteJob(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash) error
	CompleteSentJobHome(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash, lines []string, max int, msgKey string, home store.ResultHome) error
	EndExternal(ctx context.Context, ctxID uint64, jobKey string, status model.JobStatus, fields model.Hash) (store.ExternalOutcome, error)
	ExternalEnded(ctx context.Context, ctxID uint64, max int64) ([]string, error)
	JobMessageKey(ctx context.Context, ctxID uint64, jobKey string) (string, error)
	LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error)
	LoadJobStatus(ctx context.Context, ctxID uint64, jobKey string) (model.JobStatus, error)
	MarkUnreachable(ctx context.Context, ctxID uint64, key string, attempt int64, since time.Time) (time.Time, bool, error)
	NextIDs(ctx context.Context, ctxID uint64, kinds ...string) ([]uint64, error)
	RecordLateResult(ctx context.Context, ctxID uint64, key string, r *model.LateResult) (kept bool, duplicate bool, err error)
	ResultHere(ctx context.Context, ctxID uint64, key string) error
	SaveJob(ctx context.Context, j *model.RunnerJob) error
	SentJobOf(ctx context.Context, ctxID uint64, jobKey string) (store.SentJob, error)
	SetJobStatus(ctx context.Context, ctxID uint64, key string, attempt int64, status model.JobStatus, fields model.Hash) error
	WatchEnd(ctxID uint64, key string) *store.EndWatch
	WatchExternal(ctx context.Context, ctxID uint64, jobKey string) error
}

// QueueStore is the part of the store's queues (claims, leases, dead letters) this package uses.
type QueueStore interface {
	PushDeadLetter(ctx context.Context, ctxID uint64, d store.DeadLetter) error
}

// BusStore is the part of the store's bus records (messages, outbox, inbound, results) this package uses.
type BusStore interface {
	horizonStore // replay.go
	AckMessage(ctx context.Context, ctxID uint64, key string, from string) (store.AckOutcome, error)
	AwaitAdd(ctx context.Context, ctxID uint64, key string, t time.Time) error
	AwaitDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error)
	AwaitList(ctx context.Context, ctxID uint64, max int64) ([]string, error)
	AwaitRemove(ctx context.Context, ctxID uint64, key string) error
	CountMessageFailure(ctx context.Context, ctxID uint64, key string) (int64, error)
	Dispatch(ctx context.Context, ctxID uint64, o store.Outgoing) error
	Done(ctx context.Context, ctxID uint64, processing string, key string) error
	InboundJob(ctx context.Context, ctxID uint64, sender string, originCtx uint64, originJob string) (string, error)
	LoadMessageKey(ctx context.Context, ctxID uint64, key string) (*model.Message, error)
	MarkSeen(ctx context.Context, replayKey string, ttl time.Duration) (bool, error)
	MaterializeAndClaim(ctx context.Context, ctxID uint64, sender string, ref string, originCtx uint64, originJob string, m *model.Message, j *model.RunnerJob, spec *store.ClaimSpec) (key string, created bool, cl *store.Claim, err error)
	OutboxDestinations(ctx context.Context, ctxID uint64, max int64) (map[string]string, int64, error)
	OutboxDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error)
	OutboxRemove(ctx context.Context, ctxID uint64, key string) (bool, error)
	OutboxResendNow(ctx context.Context, ctxID uint64, dst string, now time.Time, max int64) ([]string, error)
	PushMessage(ctx context.Context, ctxID uint64, m *model.Message, list string) error
	QuarantineAfter() int64
	QueueLocalJob(ctx context.Context, ctxID uint64, processing, msgKey, jobKey, scriptType string) (bool, error)
	QuarantineMessage(ctx context.Context, ctxID uint64, key string, list string, processing string, reason string, class string) error
	Requeue(ctx context.Context, ctxID uint64, processing string, list string) (int, error)
	SetMessageStatus(ctx context.Context, ctxID uint64, key string, status model.MessageStatus, fields model.Hash) error
	TakeMsgOut(ctx context.Context, ctxID uint64, list string, processing string, wait time.Duration) (string, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	FlowNodeState(ctx context.Context, ctxID uint64, flowID uint64, name string) (model.NodeState, error)
}

// EventStore is the part of the store's events and triggers this package uses.
type EventStore interface {
	QueueLocalEvent(ctx context.Context, ctxID uint64, processing string, key string) error
	ReceiveEvent(ctx context.Context, ctxID uint64, sender string, ref string, m *model.Message) (bool, error)
}

// RegistryStore is the part of the store's registry (contexts, actors, runners, peers) this package uses.
type RegistryStore interface {
	ActorByPubkey(ctx context.Context, pubkey string) (*model.Actor, error)
	ActorOf(ctx context.Context, pubkey string) (*model.Actor, error)
	AdoptOwnDBContext(ctx context.Context, id uint64) (*model.Context, error)
	Authorize(ctx context.Context, id uint64, pubkey string, role model.Role) (*model.Actor, error)
	CheckContextID(id uint64) error
	ContextsOnlyInOwnDB(ctx context.Context, ids []uint64) ([]uint64, error)
	EnableContextEvents(ctx context.Context) (bool, error)
	ListRunners(ctx context.Context, ctxID uint64) ([]*model.Runner, error)
	LoadContext(ctx context.Context, id uint64) (*model.Context, error)
	LoadRunner(ctx context.Context, ctxID uint64, id uint64) (*model.Runner, error)
	MarkContextRefused(ctx context.Context, id uint64, why string) error
	SubscribeContextWrites(ctx context.Context, fn func(id uint64)) (*store.ContextWrites, error)
	UnregisteredContexts(ctx context.Context, known []uint64) ([]uint64, error)
}

// LogStore is the part of the store's job logs this package uses.
type LogStore interface {
	ReadLogLines(ctx context.Context, ctxID uint64, jobKey string, from int64) ([]store.LogLine, error)
	ReadLogs(ctx context.Context, ctxID uint64, jobKey string, from int64) ([]string, error)
}
