package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// AckFrom handles peer from's acknowledgement of one of our messages in one
// round trip, as AckMessage does, except that the message must have gone to
// from: one that has no dst yet (it waits for a runner) went to no one, so
// any ack of it is a stranger's (DESIGN §4, "Trust goes both ways"). It
// takes the message out of the outbox and, unless it carries a job,
// settles it. A message that does not exist is ErrNotFound.
func (s *Store) AckFrom(ctx context.Context, ctxID uint64, key, from string) (AckOutcome, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return "", fmt.Errorf("store.AckFrom: %w", err)
	}
	out, err := ackFrom.Run(ctx, db, []string{key, OutboxKey}, from, time.Now().Unix()).Text()
	if err != nil {
		if msg := err.Error(); strings.HasPrefix(msg, "notfound: ") {
			return "", fmt.Errorf("store.AckFrom: %w: %s", ErrNotFound, strings.TrimPrefix(msg, "notfound: "))
		}
		return "", fmt.Errorf("store.AckFrom %s: %w", key, err)
	}
	return AckOutcome(out), nil
}

// ackFrom: see AckFrom.
// KEYS[1] message key, KEYS[2] outbox. ARGV[1] the acknowledging peer ID,
// ARGV[2] now (unix s). Returns an AckOutcome, or "notfound: …".
var ackFrom = redis.NewScript(luaToProcessed() + `
local f = redis.call('HMGET', KEYS[1], 'dst', 'message_type', 'status')
if not f[2] and not f[3] and redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('notfound: ' .. KEYS[1])
end
if not f[1] or f[1] == '' or f[1] ~= ARGV[1] then return 'stranger' end
if redis.call('ZREM', KEYS[2], KEYS[1]) == 0 then return 'duplicate' end
if f[2] == 'job' then return 'job' end
if to_processed[f[3] or ''] then
  redis.call('HSET', KEYS[1], 'status', 'processed', 'updated_at', ARGV[2])
end
return 'settled'
`)

// luaToProcessed is the set of message statuses that may move to
// processed, as a Lua table to_processed, generated from
// model.MessageStatus.CanMoveTo.
func luaToProcessed() string {
	var b strings.Builder
	b.WriteString("local to_processed = {")
	for _, st := range []model.MessageStatus{"", model.MsgDispatched, model.MsgAcknowledged, model.MsgError, model.MsgProcessed} {
		if st.CanMoveTo(model.MsgProcessed) {
			fmt.Fprintf(&b, "[%q] = true, ", string(st))
		}
	}
	b.WriteString("}\n")
	return b.String()
}
