package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// MoveNext moves the oldest entry of list (its right end) to the left of
// processing and returns it, without blocking: "" when list is empty. A
// loop woken by a KeyWatch takes its entries with it, as a blocked
// BLMOVE would have.
func (s *core) MoveNext(ctx context.Context, ctxID uint64, list, processing string) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.MoveNext: %w", err)
	}
	k, err := db.LMove(ctx, list, processing, "RIGHT", "LEFT").Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store.MoveNext %s: %w", list, err)
	}
	return k, nil
}

// Earliest returns the lowest score of the sorted set key (scored in unix
// ms: outbox, awaiting_result, prereq_waiting) as a time; ok is false when
// the set is empty. A loop woken by a KeyWatch sets its timer by it.
func (s *core) Earliest(ctx context.Context, ctxID uint64, key string) (at time.Time, ok bool, err error) {
	db, err := s.db(ctxID)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.Earliest: %w", err)
	}
	zs, err := db.ZRangeWithScores(ctx, key, 0, 0).Result()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.Earliest %s: %w", key, err)
	}
	if len(zs) == 0 {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(int64(zs[0].Score)), true, nil
}

// Mover is what a Taker moves entries with (MoveNext).
type Mover interface {
	MoveNext(ctx context.Context, ctxID uint64, list, processing string) (string, error)
}

// Taker returns how a loop of context ctxID takes list's next entry into
// processing while w watches list: a non-blocking move (m.MoveNext), else
// a wait for the next push, at most safety, answering "" when nothing
// came. Call it before the loop's first look, so a push after it wakes
// the loop.
func (w *KeyWatch) Taker(m Mover, ctxID uint64, list, processing string, safety time.Duration) func(context.Context) (string, error) {
	wake := w.Wake(ctxID, list)
	return func(ctx context.Context) (string, error) {
		e, err := m.MoveNext(ctx, ctxID, list, processing)
		if err != nil || e != "" {
			return e, err
		}
		t := time.NewTimer(safety)
		defer t.Stop()
		select {
		case <-ctx.Done():
		case <-wake:
		case <-t.C:
		}
		return "", nil
	}
}
