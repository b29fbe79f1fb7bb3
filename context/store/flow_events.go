package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// NextJobDone moves the oldest key of jobs_done into the processing list
// (BLMOVE, blocking up to block) and returns it; "" when none came. The
// block may be under a second (go-redis' BLMove would round it up to 1s),
// so a caller that stops waits at most that long.
func (s *Flows) NextJobDone(ctx context.Context, ctxID uint64, processing string, block time.Duration) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.NextJobDone: %w", err)
	}
	secs := strconv.FormatFloat(block.Seconds(), 'f', 3, 64)
	key, err := db.Do(ctx, "BLMOVE", JobsDoneKey, processing, "RIGHT", "LEFT", secs).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store.NextJobDone: %w", err)
	}
	return key, nil
}

// AckJobDone removes a handled key from the processing list.
func (s *Flows) AckJobDone(ctx context.Context, ctxID uint64, processing, key string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.AckJobDone: %w", err)
	}
	return wrap("store.AckJobDone", db.LRem(ctx, processing, 1, key).Err())
}

// RestoreJobsDone puts every entry left in the processing list back at the
// consuming end of jobs_done (a crash mid-handling loses no event) and
// returns how many it moved.
func (s *Flows) RestoreJobsDone(ctx context.Context, ctxID uint64, processing string) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.RestoreJobsDone: %w", err)
	}
	n, err := restoreJobsDone.Run(ctx, db, []string{processing, JobsDoneKey}).Int64()
	return n, scriptErr("store.RestoreJobsDone", err)
}

// restoreJobsDone: see RestoreJobsDone. It moves every entry of a
// scheduler's processing list back to the consuming (right) end of
// jobs_done, oldest consumed first.
// KEYS[1] jobs_done:processing:<owner>, KEYS[2] jobs_done. Returns the count.
var restoreJobsDone = newScript("restoreJobsDone", `
local n = 0
while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do n = n + 1 end
return n
`)
