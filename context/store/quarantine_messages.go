package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// QuarantineMessage sets aside message key, taken from list (msg_out,
// msg_in) into processing, that can never be processed as it is (a decode
// or validation error: class DeadInvalid) or that failed too often in a
// row (DeadFailures): in one step it leaves processing, is marked error
// with the reason (when it is a hash) and goes to the context's dead
// letters, counted. RetryDeadLetter puts it back on list once fixed.
func (s *Bus) QuarantineMessage(ctx context.Context, ctxID uint64, key, list, processing, reason, class string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.QuarantineMessage: %w", err)
	}
	if class == "" {
		class = DeadInvalid
	}
	b, _ := json.Marshal(DeadLetter{Key: key, Queue: list, Reason: reason, At: now(), Class: class})
	keys := []string{key, processing, DeadLetterKey, DeadLetterCountsKey}
	err = quarantineMessage.Run(ctx, db, keys, reason, string(b), DeadLetterCap, class, now()).Err()
	return wrap("store.QuarantineMessage", err)
}

// quarantineMessage: see QuarantineMessage. KEYS[1] the message key,
// KEYS[2] the processing list it was taken into ("" none), KEYS[3]
// dead_letter, KEYS[4] dead_letter:counts. ARGV[1] the reason, ARGV[2] the
// dead letter (JSON), ARGV[3] the dead-letter cap, ARGV[4] the class,
// ARGV[5] now (unix s).
var quarantineMessage = newScript("quarantineMessage", `
if KEYS[2] ~= '' then redis.call('LREM', KEYS[2], 1, KEYS[1]) end
if redis.call('TYPE', KEYS[1]).ok == 'hash' then
  redis.call('HSET', KEYS[1], 'status', 'error', 'error', ARGV[1], 'quarantined', ARGV[1], 'updated_at', ARGV[5])
end
redis.call('LPUSH', KEYS[3], ARGV[2])
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[3]) - 1)
redis.call('HINCRBY', KEYS[4], ARGV[4], 1)
return 1
`)

// CountMessageFailure counts one more failure in a row of message key
// (kept an hour after the last) and returns the count.
func (s *Bus) CountMessageFailure(ctx context.Context, ctxID uint64, key string) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.CountMessageFailure: %w", err)
	}
	var n *redis.IntCmd
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		n = p.Incr(ctx, failuresKey(key))
		p.Expire(ctx, failuresKey(key), time.Hour)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store.CountMessageFailure: %w", err)
	}
	return n.Val(), nil
}

// failuresKey is failures:<key>, a message's failures in a row.
func failuresKey(key string) string { return "failures:" + key }

// ErrStillBad is RetryDeadLetter's answer for a message that still cannot
// be decoded: fix its hash first.
var ErrStillBad = errors.New("still cannot be processed")

// RetryMessage puts a quarantined message back on the list it was taken
// from (msg_out when its dead letter does not say), status dispatched and
// its error cleared, and drops its dead letters and failure count. A
// message that still does not decode is refused (ErrStillBad) and left.
// It returns the list the message went back on.
func (s *Bus) RetryMessage(ctx context.Context, ctxID uint64, key string) (string, error) {
	if _, err := s.LoadMessageKey(ctx, ctxID, key); err != nil {
		return "", fmt.Errorf("store.RetryMessage: %s %w: %w", key, ErrStillBad, err)
	}
	list := MsgOutKey
	if dl, err := s.queues.DeadLetters(ctx, ctxID, DeadLetterCap); err == nil {
		for _, d := range dl {
			if d.Key == key && (d.Queue == MsgOutKey || d.Queue == MsgInKey) {
				list = d.Queue
				break
			}
		}
	}
	db, err := s.db(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.RetryMessage: %w", err)
	}
	keys := []string{key, list, DeadLetterKey, failuresKey(key)}
	err = retryMessage.Run(ctx, db, keys, string(model.MsgDispatched), now()).Err()
	return list, wrap("store.RetryMessage", err)
}

// retryMessage: see RetryMessage. KEYS[1] the message, KEYS[2] its list,
// KEYS[3] dead_letter, KEYS[4] failures:<message>. ARGV[1] "dispatched",
// ARGV[2] now (unix s).
var retryMessage = newScript("retryMessage", `
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'error', '', 'updated_at', ARGV[2])
redis.call('HDEL', KEYS[1], 'quarantined')
redis.call('DEL', KEYS[4])
for _, raw in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  local ok, d = pcall(cjson.decode, raw)
  if ok and type(d) == 'table' and d.key == KEYS[1] then redis.call('LREM', KEYS[3], 0, raw) end
end
return redis.call('LPUSH', KEYS[2], KEYS[1])
`)

// DeadLetterCounts reads how many entries each class has put in context
// ctxID's dead letters, ever (for hyphae_dead_letters_total).
func (s *Bus) DeadLetterCounts(ctx context.Context, ctxID uint64) (map[string]int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.DeadLetterCounts: %w", err)
	}
	raw, err := db.HGetAll(ctx, DeadLetterCountsKey).Result()
	if err != nil {
		return nil, fmt.Errorf("store.DeadLetterCounts: %w", err)
	}
	out := make(map[string]int64, len(raw))
	for k, v := range raw {
		n, _ := strconv.ParseInt(v, 10, 64)
		out[k] = n
	}
	return out, nil
}
