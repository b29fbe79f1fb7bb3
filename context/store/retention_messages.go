package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// luaMessageSettled defines messageSettled(status): whether a message in
// it is settled (processed or error: settledMessage), nil for no known
// status.
var luaMessageSettled = func() string {
	cases := make([]string, len(msgStatuses))
	for i, st := range msgStatuses {
		cases[i] = string(st)
	}
	return luaChain("messageSettled", "_", cases, func(st string) string {
		if messageSettled(model.MessageStatus(st)) {
			return "true"
		}
		return "false"
	})
}()

// PruneMessages removes the messages of context ctxID that EndedMessages
// listed, in one script that checks each again first: it is still settled
// with the updated_at listed, and it is waiting for nothing (not in the
// outbox or awaiting_result, not on msg_out or its processing list). dry
// removes nothing and reports what would go. Their entries on msg_in go
// with TrimMsgIn.
func (s *Bus) PruneMessages(ctx context.Context, ctxID uint64, msgs []Ended, dry bool) (Pruned, error) {
	if len(msgs) == 0 {
		return Pruned{}, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return Pruned{}, fmt.Errorf("store.PruneMessages: %w", err)
	}
	keys := []string{OutboxKey, AwaitingKey, MsgOutKey, MsgOutProcessingKey}
	args := []any{dryArg(dry)}
	for _, m := range msgs {
		keys = append(keys, m.Key)
		args = append(args, m.Updated)
	}
	res, err := pruneMessages.Run(ctx, db, keys, args...).Slice()
	if err != nil {
		return Pruned{}, scriptErr("store.PruneMessages", err)
	}
	return pruneReply(res), nil
}

// pruneMessages: see PruneMessages.
// KEYS[1] outbox, KEYS[2] awaiting_result, KEYS[3] msg_out, KEYS[4]
// msg_out:processing, KEYS[5..] the message keys.
// ARGV[1] "dry" or "", ARGV[1+i] the updated_at message i had when listed.
// Returns {bytes freed, removed message keys…}.
var pruneMessages = newScript("pruneMessages", luaMessageSettled, `
local out = {0}
for i = 5, #KEYS do
  local m = KEYS[i]
  local f = redis.call('HMGET', m, 'status', 'updated_at')
  if messageSettled(f[1] or '') and (f[2] or '') == ARGV[i - 3]
    and not redis.call('ZSCORE', KEYS[1], m) and not redis.call('ZSCORE', KEYS[2], m)
    and not redis.call('LPOS', KEYS[3], m) and not redis.call('LPOS', KEYS[4], m) then
    out[1] = out[1] + (redis.call('MEMORY', 'USAGE', m) or 0)
    if ARGV[1] ~= 'dry' then redis.call('DEL', m) end
    out[#out + 1] = m
  end
end
return out
`)

// TrimMsgIn trims msg_in of context ctxID, the record of received
// messages (newest first), to its newest keep entries, and beyond those
// drops, from the oldest end, entries whose message no longer exists
// (PruneMessages removed it), at most max of them per call. dry removes
// nothing. It returns how many entries went (or would go).
func (s *Bus) TrimMsgIn(ctx context.Context, ctxID uint64, keep, max int64, dry bool) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.TrimMsgIn: %w", err)
	}
	n, err := trimMsgIn.Run(ctx, db, []string{MsgInKey}, keep, max, dryArg(dry)).Int64()
	return n, scriptErr("store.TrimMsgIn", err)
}

// trimMsgIn: see TrimMsgIn.
// KEYS[1] msg_in. ARGV[1] entries to keep at most, ARGV[2] most dangling
// entries to look at, ARGV[3] "dry" or "".
// Returns the number of entries dropped.
var trimMsgIn = newScript("trimMsgIn", `
local n = redis.call('LLEN', KEYS[1])
local drop = math.max(0, n - tonumber(ARGV[1]))
local last = math.min(n, drop + tonumber(ARGV[2]))
while drop < last do
  local m = redis.call('LINDEX', KEYS[1], -(drop + 1))
  if redis.call('EXISTS', m) == 1 then break end
  drop = drop + 1
end
if drop > 0 and ARGV[3] ~= 'dry' then redis.call('LTRIM', KEYS[1], 0, n - drop - 1) end
return drop
`)
