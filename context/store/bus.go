package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Keys of the bridge (our additions, per context DB unless noted).

// OutboxKey is a ZSET of message keys awaiting an ack; score = unix ms of
// the next (re)send.
const OutboxKey = "outbox"

// AwaitingKey is a ZSET of acknowledged job message keys whose result has
// not come back; score = unix ms after which the job is failed.
const AwaitingKey = "awaiting_result"

// MsgOutProcessingKey holds msg_out entries taken but not yet in the outbox.
const MsgOutProcessingKey = "msg_out:processing"

// RemoteDoneProcessingKey holds remote_done entries being sent home.
const RemoteDoneProcessingKey = "remote_done:processing"

// SeenKey marks a bus envelope as received (DB 0), for replay detection.
func SeenKey(replayKey string) string { return "seen:" + replayKey }

// InboundKey maps a sender's message reference to the local job key it
// produced: inbound:<sender peer>:<ref>.
func InboundKey(sender, ref string) string { return "inbound:" + sender + ":" + ref }

// InboundJobKey maps a sender's origin job to the local job key:
// inbound_job:<sender peer>:<origin ctx>:<origin job key>.
func InboundJobKey(sender string, originCtx uint64, originJob string) string {
	return "inbound_job:" + sender + ":" + u(originCtx) + ":" + originJob
}

// MarkSeen records a bus envelope id for ttl; it reports false when it was
// already seen (a replay).
func (s *Bus) MarkSeen(ctx context.Context, replayKey string, ttl time.Duration) (bool, error) {
	ok, err := s.global.SetNX(ctx, SeenKey(replayKey), 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("store.MarkSeen: %w", err)
	}
	return ok, nil
}

// ReplayHorizonKey (DB 0) holds unix ms up to which this agent's bridge may
// have accepted envelopes: it is kept a few seconds ahead of the clock
// while the bridge runs. Envelopes stamped later than it plus the skew
// window cannot have been seen by an earlier run.
const ReplayHorizonKey = "replay_horizon"

// ReplayHorizon reads ReplayHorizonKey; the zero time when it was never set.
func (s *Bus) ReplayHorizon(ctx context.Context) (time.Time, error) {
	ms, err := s.global.Get(ctx, ReplayHorizonKey).Int64()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store.ReplayHorizon: %w", err)
	}
	return time.UnixMilli(ms), nil
}

// SetReplayHorizon moves ReplayHorizonKey forward to t (never back).
func (s *Bus) SetReplayHorizon(ctx context.Context, t time.Time) error {
	err := setMax.Run(ctx, s.global, []string{ReplayHorizonKey}, t.UnixMilli()).Err()
	return scriptErr("store.SetReplayHorizon", err)
}

// setMax sets an integer key to ARGV[1] unless it already holds more.
// KEYS[1] the key. ARGV[1] the new value.
var setMax = newScript("setMax", `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1]) end
return 1
`)

// RecordSeen records bus envelope ids as MarkSeen does, without asking
// whether they were new (the caller knows), in one round trip.
func (s *Bus) RecordSeen(ctx context.Context, replayKeys []string, ttl time.Duration) error {
	_, err := s.global.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range replayKeys {
			p.Set(ctx, SeenKey(k), 1, ttl)
		}
		return nil
	})
	return wrap("store.RecordSeen", err)
}

// InboundJob finds the local job made from a sender's origin job.
func (s *Bus) InboundJob(ctx context.Context, ctxID uint64, sender string, originCtx uint64, originJob string) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", err
	}
	k, err := db.Get(ctx, InboundJobKey(sender, originCtx, originJob)).Result()
	if errors.Is(err, redis.Nil) {
		return "", fmt.Errorf("store.InboundJob: %w", ErrNotFound)
	}
	return k, err
}

// TakeMsgOut blocks up to wait for a key on msg_out and moves it to the
// processing list; "" when none arrived.
func (s *Bus) TakeMsgOut(ctx context.Context, ctxID uint64, list, processing string, wait time.Duration) (string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", err
	}
	k, err := db.BLMove(ctx, list, processing, "RIGHT", "LEFT", wait).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return k, err
}

// Requeue moves every entry of processing back onto list (recovery).
func (s *Bus) Requeue(ctx context.Context, ctxID uint64, processing, list string) (int, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		err := db.LMove(ctx, processing, list, "RIGHT", "RIGHT").Err()
		if errors.Is(err, redis.Nil) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// Done removes key from a processing list.
func (s *Bus) Done(ctx context.Context, ctxID uint64, processing, key string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return err
	}
	return db.LRem(ctx, processing, 1, key).Err()
}

// OutboxDue returns message keys due at now.
func (s *Bus) OutboxDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error) {
	return s.due(ctx, ctxID, OutboxKey, now, max)
}

// due returns up to max members of the sorted set key (scored in unix ms)
// whose time has come at now, earliest first.
func (s *core) due(ctx context.Context, ctxID uint64, key string, now time.Time, max int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, err
	}
	return db.ZRangeArgs(ctx, redis.ZRangeArgs{Key: key, ByScore: true, Start: "-inf",
		Stop: strconv.FormatInt(now.UnixMilli(), 10), Count: max}).Result()
}

// OutboxRemove drops key from the outbox; it reports whether it was there.
func (s *Bus) OutboxRemove(ctx context.Context, ctxID uint64, key string) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, err
	}
	n, err := db.ZRem(ctx, OutboxKey, key).Result()
	return n > 0, err
}

// OutboxSize counts messages awaiting an ack in a context.
func (s *Bus) OutboxSize(ctx context.Context, ctxID uint64) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, err
	}
	return db.ZCard(ctx, OutboxKey).Result()
}

// AwaitAdd records that message key's result is due by t.
func (s *Bus) AwaitAdd(ctx context.Context, ctxID uint64, key string, t time.Time) error {
	db, err := s.db(ctxID)
	if err != nil {
		return err
	}
	return db.ZAdd(ctx, AwaitingKey, redis.Z{Score: float64(t.UnixMilli()), Member: key}).Err()
}

// AwaitDue returns message keys whose result is overdue at now.
func (s *Bus) AwaitDue(ctx context.Context, ctxID uint64, now time.Time, max int64) ([]string, error) {
	return s.due(ctx, ctxID, AwaitingKey, now, max)
}

// AwaitList returns up to max message keys awaiting a result, soonest
// deadline first.
func (s *Bus) AwaitList(ctx context.Context, ctxID uint64, max int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, err
	}
	return db.ZRange(ctx, AwaitingKey, 0, max-1).Result()
}

// AwaitRemove forgets message key's pending result.
func (s *Bus) AwaitRemove(ctx context.Context, ctxID uint64, key string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return err
	}
	return db.ZRem(ctx, AwaitingKey, key).Err()
}
