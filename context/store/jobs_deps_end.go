package store

import (
	"context"
	"fmt"
	"time"
)

// EndWaitingJobs ends error, with reason, those of the jobs named by keys
// that still wait to start (status waiting_for_prerequisites): the jobs
// of a flow that ended before they could run, which would otherwise wait
// forever. Each end is announced as any end of a job (its reply list, the
// jobs that wait for it). Jobs in another state are left as they are. It
// returns how many it ended.
func (s *Jobs) EndWaitingJobs(ctx context.Context, ctxID uint64, keys []string, reason string) (int, error) {
	if len(keys) == 0 {
		return 0, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.EndWaitingJobs: %w", err)
	}
	all := append([]string{JobsDoneKey, RemoteDoneKey}, keys...)
	n, err := endWaitingJobs.Run(ctx, db, all, reason, now(), int64(ReplyTTL/time.Second), ReplyKey("")).Int()
	if err != nil {
		return 0, scriptErr("store.EndWaitingJobs", err)
	}
	return n, nil
}

// endWaitingJobs: see EndWaitingJobs.
// KEYS[1] jobs_done, KEYS[2] remote_done, KEYS[3..] job keys.
// ARGV[1] the error, ARGV[2] now (unix s), ARGV[3] reply list TTL (s),
// ARGV[4] the reply list's key prefix (ReplyKey of "").
// Returns how many jobs it ended.
var endWaitingJobs = newScript("endWaitingJobs", luaAnnounceEnd, `
local n = 0
for i = 3, #KEYS do
  local st = redis.pcall('HGET', KEYS[i], 'status')
  if st == 'waiting_for_prerequisites' then
    unpark(KEYS[i])
    redis.call('HSET', KEYS[i], 'status', 'error', 'error', ARGV[1], 'updated_at', ARGV[2])
    announceEnd(KEYS[i], ARGV[4] .. KEYS[i], KEYS[1], KEYS[2], 'error', ARGV[3])
    n = n + 1
  end
end
return n
`)
