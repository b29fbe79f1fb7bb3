package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// CreateContext writes a new context into its own DB and the DB 0 registry.
// With c.ID == 0 the lowest free id is taken. It refuses an existing id.
func (s *Registry) CreateContext(ctx context.Context, c *model.Context) error {
	if c.ID == 0 {
		id, err := s.freeContextID(ctx)
		if err != nil {
			return fmt.Errorf("store.CreateContext: %w", err)
		}
		c.ID = id
	}
	db, err := s.db(c.ID)
	if err != nil {
		return fmt.Errorf("store.CreateContext: %w", err)
	}
	stamp(&c.CreatedAt, &c.UpdatedAt)
	ok, err := db.HSetNX(ctx, ContextKey(c.ID), "id", u(c.ID)).Result()
	if err != nil {
		return fmt.Errorf("store.CreateContext %d: %w", c.ID, err)
	}
	if !ok {
		return fmt.Errorf("store.CreateContext: context %d: %w", c.ID, ErrExists)
	}
	return s.writeContext(ctx, db, c)
}

// saveContext overwrites an existing context (both copies).
func (s *core) saveContext(ctx context.Context, c *model.Context) error {
	db, err := s.db(c.ID)
	if err != nil {
		return fmt.Errorf("store.SaveContext: %w", err)
	}
	stamp(&c.CreatedAt, &c.UpdatedAt)
	return s.writeContext(ctx, db, c)
}

func (s *core) writeContext(ctx context.Context, db *redis.Client, c *model.Context) error {
	h := c.ToHash()
	if err := hset(ctx, db, ContextKey(c.ID), h); err != nil {
		return fmt.Errorf("store.SaveContext: %w", err)
	}
	if err := hset(ctx, s.global, ContextKey(c.ID), h); err != nil {
		return fmt.Errorf("store.SaveContext registry: %w", err)
	}
	return nil
}

func (s *core) freeContextID(ctx context.Context) (uint64, error) {
	for id := uint64(1); id < s.maxDB; id++ {
		n, err := s.global.Exists(ctx, ContextKey(id)).Result()
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return id, nil
		}
	}
	return 0, fmt.Errorf("%w: all %d databases are in use", ErrBadContext, s.maxDB-1)
}

// LoadContext reads context:<id> from its own DB.
func (s *Registry) LoadContext(ctx context.Context, id uint64) (*model.Context, error) {
	db, err := s.db(id)
	if err != nil {
		return nil, fmt.Errorf("store.LoadContext: %w", err)
	}
	h, err := load(ctx, db, ContextKey(id))
	if err != nil {
		return nil, fmt.Errorf("store.LoadContext: %w", err)
	}
	return model.ContextFromHash(ContextKey(id), h)
}

// ListContexts returns the registry copies in DB 0.
func (s *Registry) ListContexts(ctx context.Context) ([]*model.Context, error) {
	keys, err := scan(ctx, s.global, "context:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListContexts: %w", err)
	}
	return loadAll(ctx, s.global, keys, model.ContextFromHash)
}

// deleteContext removes the context record (both copies); the DB's other
// keys are left for the operator to flush.
func (s *core) deleteContext(ctx context.Context, id uint64) error {
	db, err := s.db(id)
	if err != nil {
		return fmt.Errorf("store.DeleteContext: %w", err)
	}
	if err := del(ctx, db, ContextKey(id)); err != nil {
		return fmt.Errorf("store.DeleteContext: %w", err)
	}
	_ = s.global.Del(ctx, ContextKey(id)).Err()
	return nil
}

// updateContext applies fn to the context under optimistic locking (WATCH),
// retrying on conflict, and saves both copies. A field fn takes away (an
// Extra deleted, a name emptied) is removed from both copies, not left;
// the fields of clear are removed from both copies too whenever the
// context after fn lacks them, whatever the copies held (a registry copy
// that drifted from the context's own).
func (s *core) updateContext(ctx context.Context, id uint64, fn func(*model.Context) error, clear ...string) (*model.Context, error) {
	db, err := s.db(id)
	if err != nil {
		return nil, fmt.Errorf("store.UpdateContext: %w", err)
	}
	key := ContextKey(id)
	var out *model.Context
	var gone []string
	for try := 0; try < 20; try++ {
		err = db.Watch(ctx, func(tx *redis.Tx) error {
			h, err := tx.HGetAll(ctx, key).Result()
			if err != nil {
				return err
			}
			if len(h) == 0 {
				return fmt.Errorf("%s: %w", key, ErrNotFound)
			}
			c, err := model.ContextFromHash(key, h)
			if err != nil {
				return err
			}
			before := c.ToHash()
			if err := fn(c); err != nil {
				return err
			}
			stamp(&c.CreatedAt, &c.UpdatedAt)
			after := c.ToHash()
			gone = removedFields(before, after, clear)
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HSet(ctx, key, pairs(after)...)
				if len(gone) > 0 {
					p.HDel(ctx, key, gone...)
				}
				return nil
			})
			out = c
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store.UpdateContext %d: %w", id, err)
	}
	_, err = s.global.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, pairs(out.ToHash())...)
		if len(gone) > 0 {
			p.HDel(ctx, key, gone...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.UpdateContext registry: %w", err)
	}
	return out, nil
}

// removedFields lists the fields of before, and of clear, that after lacks.
func removedFields(before, after model.Hash, clear []string) []string {
	var out []string
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	for _, k := range clear {
		if _, ok := after[k]; !ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Grant gives actor role in context id.
func (s *Registry) Grant(ctx context.Context, id, actor uint64, role model.Role) (*model.Context, error) {
	return s.updateContext(ctx, id, func(c *model.Context) error {
		if !role.Valid() {
			return fmt.Errorf("unknown role %q (want admin, executor or reader)", role)
		}
		c.Grant(actor, role)
		return nil
	})
}

// Revoke removes actor's role in context id.
func (s *Registry) Revoke(ctx context.Context, id, actor uint64, role model.Role) (*model.Context, error) {
	return s.updateContext(ctx, id, func(c *model.Context) error {
		if !role.Valid() {
			return fmt.Errorf("unknown role %q (want admin, executor or reader)", role)
		}
		c.Revoke(actor, role)
		return nil
	})
}

// Authorize reports whether the actor with pubkey holds role in context id;
// the error says why not (unknown actor, no such context, missing role).
// It costs one round trip: the actor (DB 0) and the context (its DB) are
// read at once.
func (s *Registry) Authorize(ctx context.Context, id uint64, pubkey string, role model.Role) (*model.Actor, error) {
	db, err := s.db(id)
	if err != nil {
		return nil, fmt.Errorf("%w: context %d: %w", ErrDenied, id, err)
	}
	var ch *redis.MapStringStringCmd
	done := make(chan struct{})
	go func() { ch = db.HGetAll(ctx, ContextKey(id)); close(done) }() // the two DBs are two connections
	a, aerr := s.ActorOf(ctx, pubkey)
	<-done
	if aerr != nil {
		return nil, aerr
	}
	c, err := contextOf(id, ch)
	if err != nil {
		return a, err
	}
	if !c.Has(a.ID, role) {
		return a, fmt.Errorf("%w: actor %d (%s) lacks role %s in context %d", ErrDenied, a.ID, pubkey, role, id)
	}
	return a, nil
}

// actorByPubkey reads an actor through the pubkey index in one call.
// KEYS[1] actor_by_pubkey:<pubkey>. ARGV[1] the actor key prefix.
// Returns false when the index has no entry, else {id, HGETALL actor:<id>}.
var actorByPubkey = newScript("actorByPubkey", `
local id = redis.call('GET', KEYS[1])
if not id then return false end
return {id, redis.call('HGETALL', ARGV[1] .. id)}
`)

// ActorOf returns the actor with pubkey for an authorisation (Authorize's
// lookup, one call): an ErrDenied error when no actor has it, another
// error when the store failed.
func (s *Registry) ActorOf(ctx context.Context, pubkey string) (*model.Actor, error) {
	res, err := actorByPubkey.Run(ctx, s.global, []string{ActorByPubkeyKey(pubkey)}, actorKeyPrefix).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("%w: unknown actor %s: not registered on this agent", ErrDenied, pubkey)
	}
	if err != nil || len(res) != 2 { // the store itself failed: say so, do not blame the actor
		return nil, fmt.Errorf("store.Authorize: %w", errOr(err, "bad reply"))
	}
	idStr, _ := res[0].(string)
	aid, perr := strconv.ParseUint(idStr, 10, 64)
	flat, _ := res[1].([]any)
	if perr != nil || len(flat) == 0 {
		return nil, fmt.Errorf("%w: actor %q of %s: %w", ErrDenied, idStr, pubkey, ErrNotFound)
	}
	h := make(model.Hash, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		v, _ := flat[i+1].(string)
		h[k] = v
	}
	a, err := model.ActorFromHash(ActorKey(aid), h)
	if err != nil {
		return nil, fmt.Errorf("store.Authorize: %w", err)
	}
	return a, nil
}

// contextOf decodes Authorize's context read: ErrDenied when missing.
func contextOf(id uint64, ch *redis.MapStringStringCmd) (*model.Context, error) {
	if err := ch.Err(); err != nil {
		return nil, fmt.Errorf("store.Authorize: %w", err)
	}
	if len(ch.Val()) == 0 {
		return nil, fmt.Errorf("%w: context %d: %s: %w", ErrDenied, id, ContextKey(id), ErrNotFound)
	}
	c, err := model.ContextFromHash(ContextKey(id), ch.Val())
	if err != nil {
		return nil, fmt.Errorf("%w: context %d: %w", ErrDenied, id, err)
	}
	return c, nil
}

// errOr returns err, or an error saying msg when err is nil.
func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// ContextIDs lists the ids of the DB 0 registry, sorted, without loading
// the contexts themselves.
func (s *Registry) ContextIDs(ctx context.Context) ([]uint64, error) {
	keys, err := scan(ctx, s.global, "context:*")
	if err != nil {
		return nil, fmt.Errorf("store.ContextIDs: %w", err)
	}
	ids := make([]uint64, 0, len(keys))
	for _, k := range keys {
		if id, err := strconv.ParseUint(strings.TrimPrefix(k, "context:"), 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}
