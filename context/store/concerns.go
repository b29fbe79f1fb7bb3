package store

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// Store is the agent's store: one type per concern, sharing one connection
// (core). The wiring hands each component the concern types it declares
// it uses (its own interfaces), so no type carries the whole API; Store
// itself keeps what the wiring does at start and stop.
type Store struct {
	*core

	Jobs     *Jobs     // job records: create, load, complete, index, timeline, idempotency
	Queues   *Queues   // runners' side of jobs: claims, leases, hero lists, dead letters
	Bus      *Bus      // the bus's records: messages, outbox, inbound, awaits, replay
	Flows    *Flows    // flows: records, graphs, steps, dispatch
	Timing   *Timing   // timers and schedules
	Events   *Events   // events, triggers and waits on them
	Registry *Registry // contexts, actors, grants, runners, peers
	Logs     *Logs     // job logs and their meta
}

// Jobs is the store's job records.
type Jobs struct{ *core }

// Queues is the store's queues: what runners claim, lease and give up.
type Queues struct{ *core }

// Bus is the store's records of the bus: messages, outbox, inbound.
type Bus struct{ *core }

// Flows is the store's flows.
type Flows struct{ *core }

// Timing is the store's timers and schedules.
type Timing struct{ *core }

// Events is the store's events and triggers.
type Events struct{ *core }

// Registry is the store's contexts, actors, runners and peers.
type Registry struct{ *core }

// Logs is the store's job logs.
type Logs struct{ *core }

// newStore makes the concern types over c.
func newStore(c *core) *Store {
	c.jobs, c.queues, c.bus, c.flows = &Jobs{c}, &Queues{c}, &Bus{c}, &Flows{c}
	c.timing, c.events, c.registry, c.logs = &Timing{c}, &Events{c}, &Registry{c}, &Logs{c}
	return &Store{core: c, Jobs: c.jobs, Queues: c.queues, Bus: c.bus, Flows: c.flows,
		Timing: c.timing, Events: c.events, Registry: c.registry, Logs: c.logs}
}

// DB returns the client for context id's database, refusing ids the server
// cannot SELECT.
func (s *Store) DB(id uint64) (*redis.Client, error) { return s.db(id) }

// CheckContextID refuses 0 and ids beyond the server's databases.
func (s *Registry) CheckContextID(id uint64) error { return s.checkContextID(id) }

// NextIDs allocates one id of each kind (seq:<kind>) in context ctxID's DB
// (job, message, flow and other ids).
func (s *Jobs) NextIDs(ctx context.Context, ctxID uint64, kinds ...string) ([]uint64, error) {
	return s.nextIDs(ctx, ctxID, kinds...)
}
