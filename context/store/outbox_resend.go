package store

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// OutboxResendNow makes every message in a context's outbox addressed to
// dst (among the first max) due now, its retransmission backoff started
// again (model.ExtraBackoffFrom = its sends so far), and returns their
// keys: dst came back, so what waited for it goes at once instead of
// after a backoff grown while it was away. A message acknowledged
// meanwhile stays off the outbox.
func (s *Bus) OutboxResendNow(ctx context.Context, ctxID uint64, dst string, now time.Time, max int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.OutboxResendNow: %w", err)
	}
	keys, err := db.ZRange(ctx, OutboxKey, 0, max-1).Result()
	if err != nil || len(keys) == 0 {
		return nil, wrapErr("store.OutboxResendNow", err)
	}
	fields := make([]*redis.SliceCmd, len(keys))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			fields[i] = p.HMGet(ctx, k, "dst", model.ExtraSends)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store.OutboxResendNow: %w", err)
	}
	var due []string
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			v := fields[i].Val()
			if len(v) != 2 || v[0] != dst {
				continue
			}
			sends, _ := v[1].(string)
			p.HSet(ctx, k, model.ExtraBackoffFrom, sends)
			p.ZAddXX(ctx, OutboxKey, redis.Z{Score: float64(now.UnixMilli()), Member: k})
			due = append(due, k)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.OutboxResendNow: %w", err)
	}
	return due, nil
}

// wrapErr wraps a non-nil err with op.
func wrapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}
