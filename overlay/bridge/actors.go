package bridge

import (
	"context"
	"sync"
)

// actorIDs remembers the local actor id of each sender's pubkey, so a
// received job costs no lookup: the role check itself is part of the
// script that materialises the job (store.MaterializeAndClaim), which reads the
// context's grants as they are. An id read from memory that the check
// refuses is looked up again once (the actor may have been made anew).
type actorIDs struct {
	mu  sync.Mutex
	ids map[string]uint64 // pubkey → actor id; guarded by mu
}

// maxActorIDs bounds the memory; past it, lookups go to Redis.
const maxActorIDs = 10000

// of returns the actor id of pubkey and whether it came from memory; an
// error wrapping store.ErrDenied when no actor has it.
func (a *actorIDs) of(ctx context.Context, st RegistryStore, pubkey string) (uint64, bool, error) {
	a.mu.Lock()
	id, ok := a.ids[pubkey]
	a.mu.Unlock()
	if ok {
		return id, true, nil
	}
	actor, err := st.ActorOf(ctx, pubkey)
	if err != nil {
		return 0, false, err
	}
	a.mu.Lock()
	if a.ids == nil {
		a.ids = map[string]uint64{}
	}
	if len(a.ids) < maxActorIDs {
		a.ids[pubkey] = actor.ID
	}
	a.mu.Unlock()
	return actor.ID, false, nil
}

// actorOf is actors.of, or with Plain.Caches a lookup in Redis every time
// (never from memory).
func (b *Bridge) actorOf(ctx context.Context, pubkey string) (id uint64, cached bool, err error) {
	if !b.cfg.Plain.Caches {
		return b.actors.of(ctx, b.st.Registry, pubkey)
	}
	actor, err := b.st.Registry.ActorOf(ctx, pubkey)
	if err != nil {
		return 0, false, err
	}
	return actor.ID, false, nil
}

// forget drops pubkey's id.
func (a *actorIDs) forget(pubkey string) {
	a.mu.Lock()
	delete(a.ids, pubkey)
	a.mu.Unlock()
}
