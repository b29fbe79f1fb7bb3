package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// A seed client makes a context by writing context:<N> in DB N (seed 000:
// a context is its own Redis DB); the agent keeps a registry copy in DB 0
// and serves the contexts listed there. A context written only in its own
// DB is adopted: registered, then served like one made through the API
// (docs/design.md, "How Hyphae reads the specifications it follows"). One that cannot be read is refused, and says why on its
// own hash (field error, RefusedPrefix), never silently ignored.

// RefusedPrefix starts the error field a refused context hash gets.
const RefusedPrefix = "not served by this agent: "

// UnregisteredContexts lists the ids N (1 .. databases-1), other than
// those known (the DB 0 registry's, as ContextIDs lists them), whose DB N
// holds context:<N>: contexts written only in their own DB. Only DBs that
// hold keys (INFO keyspace, or every DB when the server does not say) are
// looked at, in one round trip on one connection (ContextsOnlyInOwnDB).
func (s *Registry) UnregisteredContexts(ctx context.Context, known []uint64) ([]uint64, error) {
	reg := make(map[uint64]bool, len(known))
	for _, id := range known {
		reg[id] = true
	}
	used := s.usedDBs(ctx)
	var ids []uint64
	for id := uint64(1); id < s.maxDB; id++ {
		if !reg[id] && (used == nil || used[id]) {
			ids = append(ids, id)
		}
	}
	out, err := s.ContextsOnlyInOwnDB(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("store.UnregisteredContexts: %w", err)
	}
	return out, nil
}

// usedDBs lists the DBs that hold keys, from INFO keyspace; nil when the
// server does not answer it (then every DB is looked at).
func (s *core) usedDBs(ctx context.Context) map[uint64]bool {
	info, err := s.global.Info(ctx, "keyspace").Result()
	if err != nil || !strings.Contains(info, "# Keyspace") {
		return nil
	}
	used := map[uint64]bool{}
	for _, line := range strings.Split(info, "\n") {
		num, _, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "db"), ":keys=")
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(num, 10, 64); err == nil {
			used[n] = true
		}
	}
	return used
}

// ContextsOnlyInOwnDB returns those of ids whose DB holds context:<id>
// while the DB 0 registry does not: one pipeline (SELECT, EXISTS) on the
// probe connection, so looking opens no client per DB.
func (s *Registry) ContextsOnlyInOwnDB(ctx context.Context, ids []uint64) ([]uint64, error) {
	for _, id := range ids {
		if err := s.checkContextID(id); err != nil {
			return nil, fmt.Errorf("store.ContextsOnlyInOwnDB: %w", err)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	p, err := s.probeClient()
	if err != nil {
		return nil, fmt.Errorf("store.ContextsOnlyInOwnDB: %w", err)
	}
	inReg, inOwn := make([]*redis.IntCmd, len(ids)), make([]*redis.IntCmd, len(ids))
	_, err = p.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Select(ctx, 0)
		for i, id := range ids {
			inReg[i] = pipe.Exists(ctx, ContextKey(id))
		}
		for i, id := range ids {
			pipe.Select(ctx, int(id))
			inOwn[i] = pipe.Exists(ctx, ContextKey(id))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.ContextsOnlyInOwnDB: %w", err)
	}
	var out []uint64
	for i, id := range ids {
		if inReg[i].Val() == 0 && inOwn[i].Val() == 1 {
			out = append(out, id)
		}
	}
	return out, nil
}

// ErrContextRefused is why a context written only in its own DB is not
// adopted; the error that wraps it says what is wrong with the hash.
var ErrContextRefused = errors.New("context refused")

// AdoptOwnDBContext registers context id, found only in its own DB: its hash
// is read as the seed's Context (id, admins, readers, executors as JSON
// lists of actor ids, timestamps), missing fields are filled in, and both
// copies are written. A hash that cannot be read, or that names another
// id, is refused (ErrContextRefused) and left as it is.
func (s *Registry) AdoptOwnDBContext(ctx context.Context, id uint64) (*model.Context, error) {
	db, err := s.db(id)
	if err != nil {
		return nil, fmt.Errorf("store.AdoptOwnDBContext: %w", err)
	}
	h, err := load(ctx, db, ContextKey(id))
	if err != nil {
		return nil, fmt.Errorf("store.AdoptOwnDBContext: %w", err)
	}
	c, err := model.ContextFromHash(ContextKey(id), h)
	switch {
	case err != nil:
		return nil, fmt.Errorf("store.AdoptOwnDBContext: %w: %v", ErrContextRefused, err)
	case c.ID != 0 && c.ID != id:
		return nil, fmt.Errorf("store.AdoptOwnDBContext: %w: context:%d in DB %d says id %d", ErrContextRefused, id, id, c.ID)
	}
	c.ID = id
	if strings.HasPrefix(c.Extra["error"], RefusedPrefix) { // an earlier refusal, mended since
		delete(c.Extra, "error")
		if err := db.HDel(ctx, ContextKey(id), "error").Err(); err != nil {
			return nil, fmt.Errorf("store.AdoptOwnDBContext: %w", err)
		}
	}
	if err := s.saveContext(ctx, c); err != nil {
		return nil, fmt.Errorf("store.AdoptOwnDBContext: %w", err)
	}
	return c, nil
}

// MarkContextRefused writes why context id is not served on its own hash
// (field error, after RefusedPrefix), where its writer will look.
func (s *Registry) MarkContextRefused(ctx context.Context, id uint64, why string) error {
	db, err := s.db(id)
	if err != nil {
		return fmt.Errorf("store.MarkContextRefused: %w", err)
	}
	return wrap("store.MarkContextRefused", db.HSet(ctx, ContextKey(id), "error", RefusedPrefix+why).Err())
}
