package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Hero dispatcher protocol (docs/design.md, "Redis layout", DB 0). The field layout of
// hero:job:<id> is documented in package executor, which serves it.

// HeroTime formats t as the protocol's ISO-8601 timestamps (RFC 3339, UTC).
func HeroTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// blockSecs is a blocking command's timeout in seconds with a fraction:
// go-redis' BLMove and BLPop round a wait under a second up to 1s and log a
// warning each time (twice a second for a hero worker's two loops).
func blockSecs(wait time.Duration) string {
	return strconv.FormatFloat(wait.Seconds(), 'f', 3, 64)
}

// HeroNext waits up to wait for a job id on hero:work_queue:<worker>, taking
// it like BLPOP does (from the left) but into hero:processing:<worker>, so
// a worker that dies mid-job can answer it on restart. "" on timeout.
func (s *Queues) HeroNext(ctx context.Context, worker string, wait time.Duration) (string, error) {
	id, err := s.global.Do(ctx, "BLMOVE", HeroWorkQueueKey(worker), HeroProcessingKey(worker),
		"LEFT", "LEFT", blockSecs(wait)).Text()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store.HeroNext %s: %w", worker, err)
	}
	return id, nil
}

// HeroNextStop waits up to wait for a job id on hero:stop_queue:<worker>.
func (s *Queues) HeroNextStop(ctx context.Context, worker string, wait time.Duration) (string, error) {
	res, err := s.global.Do(ctx, "BLPOP", HeroStopQueueKey(worker), blockSecs(wait)).StringSlice()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("store.HeroNextStop %s: %w", worker, err)
	}
	return res[1], nil
}

// HeroLoad reads hero:job:<id>; ErrNotFound when it does not exist.
func (s *Queues) HeroLoad(ctx context.Context, id string) (model.Hash, error) {
	h, err := load(ctx, s.global, HeroJobKey(id))
	return h, wrap("store.HeroLoad", err)
}

// HeroUpdate writes fields onto hero:job:<id>.
func (s *Queues) HeroUpdate(ctx context.Context, id string, fields model.Hash) error {
	return wrap("store.HeroUpdate", hset(ctx, s.global, HeroJobKey(id), fields))
}

// HeroFinish writes the final fields of hero:job:<id>, LPUSHes reply on
// hero:reply:<id> (kept ReplyTTL) and drops the id from the worker's
// processing list, atomically.
func (s *Queues) HeroFinish(ctx context.Context, worker, id string, fields model.Hash, reply string) error {
	keys := []string{HeroJobKey(id), HeroReplyKey(id), HeroProcessingKey(worker)}
	args := append([]any{id, reply, int64(ReplyTTL / time.Second)}, pairs(fields)...)
	return scriptErr("store.HeroFinish", heroFinish.Run(ctx, s.global, keys, args...).Err())
}

// heroFinish: see HeroFinish.
// KEYS[1] hero:job:<id>, KEYS[2] hero:reply:<id>, KEYS[3]
// hero:processing:<worker>. ARGV[1] job id, ARGV[2] reply payload,
// ARGV[3] reply TTL (s), ARGV[4..] field, value pairs.
var heroFinish = newScript("heroFinish", `
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
redis.call('LREM', KEYS[3], 0, ARGV[1])
return 1
`)

// HeroProcessing lists the ids in hero:processing:<worker>.
func (s *Queues) HeroProcessing(ctx context.Context, worker string) ([]string, error) {
	ids, err := s.global.LRange(ctx, HeroProcessingKey(worker), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("store.HeroProcessing %s: %w", worker, err)
	}
	return ids, nil
}

// HeroTakeQueued moves id from hero:work_queue:<worker> into the worker's
// processing list if it is still queued, and reports whether it was.
func (s *Queues) HeroTakeQueued(ctx context.Context, worker, id string) (bool, error) {
	keys := []string{HeroWorkQueueKey(worker), HeroProcessingKey(worker)}
	n, err := heroTakeQueued.Run(ctx, s.global, keys, id).Int64()
	if err != nil {
		return false, scriptErr("store.HeroTakeQueued", err)
	}
	return n > 0, nil
}

// heroTakeQueued: see HeroTakeQueued.
// KEYS[1] hero:work_queue:<worker>, KEYS[2] hero:processing:<worker>.
// ARGV[1] job id. Returns how many entries were removed from the queue.
var heroTakeQueued = newScript("heroTakeQueued", `
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n > 0 then redis.call('LPUSH', KEYS[2], ARGV[1]) end
return n
`)

// HeroPutBack returns id from the worker's processing list to the head of
// its work queue (the end BLPOP takes from), e.g. when the worker stops
// before running it.
func (s *Queues) HeroPutBack(ctx context.Context, worker, id string) error {
	keys := []string{HeroProcessingKey(worker), HeroWorkQueueKey(worker)}
	return scriptErr("store.HeroPutBack", heroPutBack.Run(ctx, s.global, keys, id).Err())
}

// heroPutBack: see HeroPutBack. It moves a hero job id from the processing
// list back to the head (left, where workers BLPOP) of the work queue.
// KEYS[1] hero:processing:<worker>, KEYS[2] hero:work_queue:<worker>.
// ARGV[1] job id. Returns 1.
var heroPutBack = newScript("heroPutBack", `
if redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0 then
  redis.call('LPUSH', KEYS[2], ARGV[1])
end
return 1
`)

// HeroDrop removes id from the worker's processing list.
func (s *Queues) HeroDrop(ctx context.Context, worker, id string) error {
	err := s.global.LRem(ctx, HeroProcessingKey(worker), 0, id).Err()
	return wrap("store.HeroDrop", err)
}
