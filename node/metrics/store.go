package metrics

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
)

// Store is what this package needs of the store: one interface per concern
// of it (the agent hands it the store's concern types, tests too).
type Store struct {
	Queues   QueueStore
	Bus      BusStore
	Flows    FlowStore
	Registry RegistryStore
}

// QueueStore is the part of the store's queues (claims, leases, dead letters) this package uses.
type QueueStore interface {
	QueueDepths(ctx context.Context, ctxID uint64) (map[string]int64, error)
}

// BusStore is the part of the store's bus records (messages, outbox, inbound, results) this package uses.
type BusStore interface {
	DeadLetterCounts(ctx context.Context, ctxID uint64) (map[string]int64, error)
	OutboxSize(ctx context.Context, ctxID uint64) (int64, error)
}

// FlowStore is the part of the store's flows this package uses.
type FlowStore interface {
	FlowStatusCounts(ctx context.Context, ctxID uint64) (map[string]int64, error)
}

// RegistryStore is the part of the store's registry (contexts, actors, runners, peers) this package uses.
type RegistryStore interface {
	ListPeers(ctx context.Context) ([]*model.Peer, error)
}
