package retention

import (
	"context"

	"github.com/hyphae-run/hyphae/context/store"
)

// Store is what this package needs of the store: one interface per concern
// of it (the agent hands it the store's concern types, tests too).
type Store struct {
	Jobs  JobStore
	Bus   BusStore
	Flows FlowStore
}

// JobStore is the part of the store's job records this package uses.
type JobStore interface {
	EndedJobs(ctx context.Context, ctxID uint64) ([]store.Ended, error)
	Existing(ctx context.Context, ctxID uint64, keys []string) (map[string]bool, error)
	PruneJobs(ctx context.Context, ctxID uint64, jobs []store.Ended, dry bool) (store.Pruned, error)
}

// BusStore is the part of the store's bus records (messages, outbox, inbound, results) this package uses.
type BusStore interface {
	EndedMessages(ctx context.Context, ctxID uint64) ([]store.Ended, error)
	PruneMessages(ctx context.Context, ctxID uint64, msgs []store.Ended, dry bool) (store.Pruned, error)
	TrimMsgIn(ctx context.Context, ctxID uint64, keep int64, max int64, dry bool) (int64, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	EndedFlows(ctx context.Context, ctxID uint64) ([]store.Ended, error)
	PruneFlows(ctx context.Context, ctxID uint64, flows []store.Ended, dry bool) (store.Pruned, error)
}
