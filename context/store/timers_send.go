package store

import (
	"context"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// SendAt saves job j and its message m (both in context ctxID, the origin,
// where a sent job is recorded) and pushes the message on msg_out at at:
// when at is after now the message waits in TimersKey until then, and the
// bridge sends it as it sends a client's message (its timeout counts from
// the send, since the message is saved without created_at). One step.
func (s *Timing) SendAt(ctx context.Context, ctxID uint64, j *model.RunnerJob, m *model.Message, at, now time.Time) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SendAt: %w", err)
	}
	stamp(&j.CreatedAt, &j.UpdatedAt)
	jf := pairs(j.ToHash())
	mh := m.ToHash()
	mh["created_at"] = "0" // stamped when sent (the bridge's launchTaken)
	keys := []string{JobKey(j.CallerID, j.ID), MessageKey(m.CallerID, m.ID), MsgOutKey}
	args := append([]any{at.UnixMilli(), now.UnixMilli(), ctxID, len(jf) / 2}, jf...)
	args = append(args, pairs(mh)...)
	return scriptErr("store.SendAt", sendAt.Run(ctx, db, keys, args...).Err())
}

// sendAt: see SendAt. KEYS[1] job key, KEYS[2] message key, KEYS[3]
// msg_out. ARGV[1] due (unix ms), ARGV[2] now (unix ms), ARGV[3] context
// id, ARGV[4] N, ARGV[5..4+2N] job field/value pairs, then the message's.
// Returns 0 when the message waits in timers, 1 when pushed now.
var sendAt = newScript("sendAt", luaTimers, `
local n = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + 2 * n))
redis.call('HSET', KEYS[2], unpack(ARGV, 5 + 2 * n))
if tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  addTimer(pushMember(KEYS[3], KEYS[2]), ARGV[1], ARGV[3])
  return 0
end
redis.call('LPUSH', KEYS[3], KEYS[2])
return 1
`)
