package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// scriptErr maps error replies of our Lua scripts onto sentinel errors.
func scriptErr(op string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "fenced:"):
		return fmt.Errorf("%s: %w: %s", op, ErrFenced, msg)
	case strings.HasPrefix(msg, "transition:"):
		return fmt.Errorf("%s: %w: %s", op, model.ErrBadTransition, msg)
	case strings.HasPrefix(msg, "notfound:"):
		return fmt.Errorf("%s: %w: %s", op, ErrNotFound, strings.TrimPrefix(msg, "notfound: "))
	case strings.HasPrefix(msg, "exists:"):
		return fmt.Errorf("%s: %w: %s", op, ErrExists, strings.TrimPrefix(msg, "exists: "))
	}
	return fmt.Errorf("%s: %w", op, err)
}

// SaveActor writes a (allocating its id when 0) and its pubkey index.
func (s *Registry) SaveActor(ctx context.Context, a *model.Actor) error {
	if a.ID == 0 {
		id, err := NextID(ctx, s.global, "actor")
		if err != nil {
			return fmt.Errorf("store.SaveActor: %w", err)
		}
		a.ID = id
	}
	stamp(&a.CreatedAt, &a.UpdatedAt)
	idx, stale := "", ""
	if a.Pubkey != "" {
		idx = ActorByPubkeyKey(a.Pubkey)
	}
	// A changed pubkey must stop finding (and authorising) this actor.
	prev, err := s.global.HGet(ctx, ActorKey(a.ID), "pubkey").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("store.SaveActor: %w", err)
	}
	if prev != "" && prev != a.Pubkey {
		stale = ActorByPubkeyKey(prev)
	}
	args := append([]any{u(a.ID)}, pairs(a.ToHash())...)
	err = saveActor.Run(ctx, s.global, []string{ActorKey(a.ID), idx, stale}, args...).Err()
	return scriptErr("store.SaveActor", err)
}

// saveActor: see SaveActor. It writes an actor and its pubkey index,
// refusing a pubkey that belongs to another actor, and drops the index
// entry of the actor's previous pubkey when it changed.
// KEYS[1] actor:<id>, KEYS[2] actor_by_pubkey:<pubkey> (or "" key when none),
// KEYS[3] actor_by_pubkey:<previous pubkey> (or "" key when unchanged).
// ARGV[1] id, ARGV[2..] field, value pairs.
// Returns 1, or an error "exists: …" (nothing written).
var saveActor = newScript("saveActor", `
if KEYS[2] ~= '' then
  local owner = redis.call('GET', KEYS[2])
  if owner and owner ~= ARGV[1] then
    return redis.error_reply('exists: pubkey already belongs to actor ' .. owner)
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if KEYS[2] ~= '' then redis.call('SET', KEYS[2], ARGV[1]) end
if KEYS[3] ~= '' and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1
`)

// LoadActor reads actor:<id>.
func (s *Registry) LoadActor(ctx context.Context, id uint64) (*model.Actor, error) {
	h, err := load(ctx, s.global, ActorKey(id))
	if err != nil {
		return nil, fmt.Errorf("store.LoadActor: %w", err)
	}
	return model.ActorFromHash(ActorKey(id), h)
}

// ActorByPubkey finds the local actor with that pubkey (peer ID).
func (s *Registry) ActorByPubkey(ctx context.Context, pubkey string) (*model.Actor, error) {
	v, err := s.global.Get(ctx, ActorByPubkeyKey(pubkey)).Uint64()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("store.ActorByPubkey: no actor with pubkey %s: %w", pubkey, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store.ActorByPubkey %s: %w", pubkey, err)
	}
	return s.LoadActor(ctx, v)
}

// EnsureActor returns the actor with pubkey, creating it when unknown.
func (s *Registry) EnsureActor(ctx context.Context, pubkey string) (*model.Actor, error) {
	a, err := s.ActorByPubkey(ctx, pubkey)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return a, err
	}
	a = &model.Actor{Pubkey: pubkey}
	if err := s.SaveActor(ctx, a); err != nil {
		if errors.Is(err, ErrExists) { // lost a race: someone created it
			return s.ActorByPubkey(ctx, pubkey)
		}
		return nil, err
	}
	return a, nil
}

// ListActors returns every actor in DB 0, skipping none: a hash that fails
// to decode is returned as an error naming it.
func (s *Registry) ListActors(ctx context.Context) ([]*model.Actor, error) {
	keys, err := scan(ctx, s.global, "actor:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListActors: %w", err)
	}
	return loadAll(ctx, s.global, keys, model.ActorFromHash)
}

// DeleteActor removes actor:<id> and its index.
func (s *Registry) DeleteActor(ctx context.Context, id uint64) error {
	a, err := s.LoadActor(ctx, id)
	if err != nil {
		return fmt.Errorf("store.DeleteActor: %w", err)
	}
	err = deleteActor.Run(ctx, s.global, []string{ActorKey(id), ActorByPubkeyKey(a.Pubkey)}, u(id)).Err()
	return scriptErr("store.DeleteActor", err)
}

// deleteActor: see DeleteActor. It removes an actor and its index entry if
// that points at it.
// KEYS[1] actor:<id>, KEYS[2] actor_by_pubkey:<pubkey>. ARGV[1] id.
// Returns how many actor hashes it deleted (0 or 1).
var deleteActor = newScript("deleteActor", `
local n = redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return n
`)

// loadAll loads and decodes each key, in the order of keys (scan sorts them: compareKeys).
func loadAll[T any](ctx context.Context, c *redis.Client, keys []string,
	dec func(string, model.Hash) (*T, error)) ([]*T, error) {
	cmds, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.HGetAll(ctx, k)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) && !isWrongType(err) {
		return nil, err
	}
	out := make([]*T, 0, len(keys))
	for i, cmd := range cmds {
		h, err := cmd.(*redis.MapStringStringCmd).Result()
		if isWrongType(err) || (err == nil && len(h) == 0) {
			continue // not a hash, or deleted between scan and load
		}
		if err != nil {
			return out, fmt.Errorf("load %s: %w", keys[i], err)
		}
		v, err := dec(keys[i], h)
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
	return out, nil
}

// isWrongType reports a WRONGTYPE reply: the key holds another kind of value.
func isWrongType(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE")
}
