package store

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// RetryJob queues a job that ended error again as its next attempt, in
// one step: fenced on attempt (the one that ended, so two retries at once
// make one attempt), the error and result cleared, a stop marker of the
// old attempt dropped (it would stop the new one), the old reply cleared,
// the job pushed on queue:<scriptType>. It returns the new attempt.
func (s *Jobs) RetryJob(ctx context.Context, ctxID uint64, key, scriptType string, attempt int64) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.RetryJob: %w", err)
	}
	keys := []string{key, QueueKey(scriptType), ReplyKey(key), StopKey(key)}
	n, err := retryJob.Run(ctx, db, keys, attemptArg(attempt), now()).Int64()
	return n, scriptErr("store.RetryJob", err)
}

// retryJob: see RetryJob. KEYS[1] job key, KEYS[2] queue:<type>, KEYS[3]
// reply:<job key>, KEYS[4] stop:<job key>. ARGV[1] the attempt that
// ended, ARGV[2] now (unix s). Returns the new attempt; an error reply as
// fence's ("transition: …" unless the job is at status error).
var retryJob = newScript("retryJob", luaFence, luaTimeline, fmt.Sprintf(`
local st = redis.call('HGET', KEYS[1], 'status')
if st and st ~= %q then
  return redis.error_reply('transition: ' .. KEYS[1] .. ' is ' .. st .. ', not error')
end
local err = fence(KEYS[1], ARGV[1], %q)
if err then return err end
local next = (tonumber(redis.call('HGET', KEYS[1], 'attempt') or '0') or 0) + 1
redis.call('HSET', KEYS[1], 'status', %q, 'attempt', tostring(next), 'error', '', 'result', '{}',
  'updated_at', ARGV[2])
jobKnown[KEYS[1]] = nil -- its attempt moved
timeline(KEYS[1], 'retry', '')
redis.call('DEL', KEYS[3], KEYS[4])
redis.call('LPUSH', KEYS[2], KEYS[1])
return next
`, model.JobError, model.JobDispatched, model.JobDispatched))
