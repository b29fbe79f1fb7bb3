package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// The bridge's hot path: each bus message costs it a fixed, small number
// of round trips, whatever its kind. These operations exist for that.

// Outgoing is everything the bridge records when it puts a message on its
// way: fields of the message hash (the whole hash for a new message),
// optionally fields of the job it carries, its place in the outbox (next
// resend) and the processing list entry it came from, if any.
type Outgoing struct {
	Message    string     // message key
	Fields     model.Hash // written onto the message
	Job        string     // job key, or "" for none
	JobFields  model.Hash // written onto the job
	Next       time.Time  // outbox score: when to resend without an ack
	Processing string     // list to remove Done from, or ""
	Done       string     // the entry of Processing to remove
}

// Dispatch writes o atomically (MULTI), in one round trip.
func (s *Bus) Dispatch(ctx context.Context, ctxID uint64, o Outgoing) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.Dispatch: %w", err)
	}
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		if len(o.JobFields) > 0 && o.Job != "" {
			p.HSet(ctx, o.Job, pairs(o.JobFields)...)
		}
		timelineSent(ctx, p, o) // jobs_timeline.go
		if len(o.Fields) > 0 {
			p.HSet(ctx, o.Message, pairs(o.Fields)...)
		}
		p.ZAdd(ctx, OutboxKey, redis.Z{Score: float64(o.Next.UnixMilli()), Member: o.Message})
		if o.Processing != "" {
			p.LRem(ctx, o.Processing, 1, o.Done)
		}
		return nil
	})
	return wrap("store.Dispatch "+o.Message, err)
}

// without copies h minus one field.
func without(h model.Hash, field string) model.Hash {
	out := make(model.Hash, len(h))
	for k, v := range h {
		if k != field {
			out[k] = v
		}
	}
	return out
}

// AckOutcome is what AckMessage did.
type AckOutcome string

// AckMessage outcomes.
const (
	// AckSettled: taken out of the outbox and moved to processed (when its
	// status allowed it).
	AckSettled AckOutcome = "settled"
	// AckJob: a job message, taken out of the outbox; its status and result
	// deadline are the caller's to set (acknowledged, awaiting).
	AckJob AckOutcome = "job"
	// AckDuplicate: no longer in the outbox (acknowledged before); nothing
	// done.
	AckDuplicate AckOutcome = "duplicate"
	// AckStranger: the message went to another peer; nothing done.
	AckStranger AckOutcome = "stranger"
)

// AckMessage handles peer from's acknowledgement of one of our messages in
// one round trip: it checks that the message went to from, takes it out of
// the outbox and, unless it carries a job, settles it. A message with no
// dst yet (it waits for a runner) went to no one, so any ack of it is a
// stranger's (docs/design.md, "Trust", "Trust goes both ways"). A message that does not
// exist is ErrNotFound.
func (s *Bus) AckMessage(ctx context.Context, ctxID uint64, key, from string) (AckOutcome, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.AckMessage: %w", err)
	}
	out, err := ackMessage.Run(ctx, db, []string{key, OutboxKey}, from, now()).Text()
	if err != nil {
		return "", scriptErr("store.AckMessage "+key, err)
	}
	return AckOutcome(out), nil
}

// ackMessage: see AckMessage.
// KEYS[1] message key, KEYS[2] outbox. ARGV[1] the acknowledging peer ID,
// ARGV[2] now (unix s). Returns an AckOutcome, or an error "notfound: …".
var ackMessage = newScript("ackMessage", luaMessageMoves, `
local f = redis.call('HMGET', KEYS[1], 'dst', 'message_type', 'status')
if not f[2] and not f[3] and redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('notfound: ' .. KEYS[1])
end
if not f[1] or f[1] == '' or f[1] ~= ARGV[1] then return 'stranger' end
if redis.call('ZREM', KEYS[2], KEYS[1]) == 0 then return 'duplicate' end
if f[2] == 'job' then return 'job' end
if messageMoves(f[3] or '', 'processed') then
  redis.call('HSET', KEYS[1], 'status', 'processed', 'updated_at', ARGV[2])
end
return 'settled'
`)

// OutboxDestinations returns the destination peer (the message's dst, ""
// when it has none yet) of up to max messages in a context's outbox, and
// how many the outbox holds in all.
func (s *Bus) OutboxDestinations(ctx context.Context, ctxID uint64, max int64) (map[string]string, int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, 0, fmt.Errorf("store.OutboxDestinations: %w", err)
	}
	var size *redis.IntCmd
	var keys *redis.StringSliceCmd
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		size = p.ZCard(ctx, OutboxKey)
		keys = p.ZRange(ctx, OutboxKey, 0, max-1)
		return nil
	}); err != nil {
		return nil, 0, fmt.Errorf("store.OutboxDestinations: %w", err)
	}
	dsts := make([]*redis.StringCmd, len(keys.Val()))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys.Val() {
			dsts[i] = p.HGet(ctx, k, "dst")
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("store.OutboxDestinations: %w", err)
	}
	out := make(map[string]string, len(dsts))
	for i, k := range keys.Val() {
		out[k] = dsts[i].Val()
	}
	return out, size.Val(), nil
}
