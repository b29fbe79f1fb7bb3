package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// FormatRunAt renders t as a run_at value: unix seconds, with the
// milliseconds as decimals when there are any.
func FormatRunAt(t time.Time) string {
	ms := t.UnixMilli()
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10)
	}
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

// ParseRunAt reads a run_at value (unix seconds, decimals allowed).
func ParseRunAt(v string) (time.Time, bool) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 || f > 1e11 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(f * 1000)), true
}

// EnqueueJobAt saves j with status dispatched and run_at = at, then, as
// one step, pushes it on queue:<script_type> when at is not after now, or
// else adds it to TimersKey, from where FireDueTimers pushes it when due.
// It reports whether the job waits.
func (s *Timing) EnqueueJobAt(ctx context.Context, j *model.RunnerJob, at, now time.Time) (bool, error) {
	db, err := s.db(j.ContextID)
	if err != nil {
		return false, fmt.Errorf("store.EnqueueJobAt: %w", err)
	}
	if j.ID == 0 {
		if j.ID, err = NextID(ctx, db, "job"); err != nil {
			return false, fmt.Errorf("store.EnqueueJobAt: %w", err)
		}
	}
	if j.Attempt == 0 {
		j.Attempt = 1
	}
	j.Status = model.JobDispatched
	stamp(&j.CreatedAt, &j.UpdatedAt)
	if j.Extra == nil {
		j.Extra = model.Hash{}
	}
	j.Extra[RunAtField] = FormatRunAt(at)
	keys := []string{JobKey(j.CallerID, j.ID), QueueKey(j.ScriptType)}
	args := append([]any{at.UnixMilli(), now.UnixMilli(), j.ContextID}, pairs(j.ToHash())...)
	n, err := enqueueJobAt.Run(ctx, db, keys, args...).Int64()
	if err != nil {
		return false, scriptErr("store.EnqueueJobAt", err)
	}
	return n == 0, nil
}

// enqueueJobAt: see EnqueueJobAt.
// KEYS[1] job key, KEYS[2] queue:<type>. ARGV[1] due (unix ms), ARGV[2]
// now (unix ms), ARGV[3] context id, ARGV[4..] job field, value pairs.
// Returns 1 when queued, 0 when it waits in timers.
var enqueueJobAt = newScript("enqueueJobAt", luaTimers, `
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
if tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  addTimer(pushMember(KEYS[2], KEYS[1]), ARGV[1], ARGV[3])
  return 0
end
redis.call('LPUSH', KEYS[2], KEYS[1])
return 1
`)

// AddTimer makes entry be pushed on list at due (FireDueTimers), once:
// adding the same list and entry again only moves its time.
func (s *Timing) AddTimer(ctx context.Context, ctxID uint64, list, entry string, due time.Time) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.AddTimer: %w", err)
	}
	err = addTimerScript.Run(ctx, db, []string{TimersKey}, TimerPush(list, entry), due.UnixMilli(), ctxID).Err()
	return scriptErr("store.AddTimer", err)
}

// addTimerScript: see AddTimer. KEYS[1] timers (named for the cluster
// check; luaTimers knows it). ARGV[1] member, ARGV[2] due (unix ms),
// ARGV[3] context id.
var addTimerScript = newScript("addTimer", luaTimers, `
addTimer(ARGV[1], ARGV[2], ARGV[3])
return 1
`)

// fireBatch bounds the entries one fireTimers call moves, so a backlog of
// due timers does not hold the server for long.
const fireBatch = 500

// FireDueTimers pushes every entry of TimersKey due at now on its list and
// removes it, in batches, each one atomic: an entry fires once even when
// several agents fire the same context. It returns how many fired and the
// due time of the earliest entry left (zero when none is).
func (s *Timing) FireDueTimers(ctx context.Context, ctxID uint64, now time.Time) (int, time.Time, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("store.FireDueTimers: %w", err)
	}
	total := 0
	for {
		res, err := fireTimers.Run(ctx, db, []string{TimersKey, DeadLetterKey, DeadLetterCountsKey},
			now.UnixMilli(), fireBatch, DeadLetterCap, now.Unix()).Slice()
		if err != nil {
			return total, time.Time{}, scriptErr("store.FireDueTimers", err)
		}
		fired, _ := res[0].(int64)
		taken, _ := res[1].(int64)
		total += int(fired)
		if taken < fireBatch {
			next, _ := res[2].(string)
			return total, msTime(next), nil
		}
	}
}

// fireTimers: see FireDueTimers.
// KEYS[1] timers, KEYS[2] dead_letter, KEYS[3] dead_letter:counts. ARGV[1] now (unix ms), ARGV[2]
// how many entries at most, ARGV[3] dead-letter cap, ARGV[4] now (unix s).
// It also writes the lists and job hashes the members name. A member that
// is no push entry is dead-lettered. Returns {pushed, taken, due time of
// the earliest entry left or ""}.
var fireTimers = newScript("fireTimers", luaTimers, `
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local n = 0
for _, m in ipairs(due) do
  redis.call('ZREM', KEYS[1], m)
  local list, entry = parsePush(m)
  if list then
    local at = redis.pcall('HGET', entry, runAtField)
    if type(at) == 'string' then redis.call('HSET', entry, firedField, at) end
    redis.call('LPUSH', list, entry)
    n = n + 1
  else
    redis.call('LPUSH', KEYS[2], cjson.encode({key = m, queue = KEYS[1],
      reason = 'not a timer entry (want "push <list> <entry>")', at = tonumber(ARGV[4]), class = 'invalid'}))
    redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
    redis.call('HINCRBY', KEYS[3], 'invalid', 1)
  end
end
local nxt = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {n, #due, nxt[2] or ''}
`)

// nextTimer returns the due time of the context's earliest timer entry,
// zero when there is none.
func (s *core) nextTimer(ctx context.Context, ctxID uint64) (time.Time, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return time.Time{}, fmt.Errorf("store.NextTimer: %w", err)
	}
	zs, err := db.ZRangeWithScores(ctx, TimersKey, 0, 0).Result()
	if err != nil {
		return time.Time{}, fmt.Errorf("store.NextTimer: %w", err)
	}
	if len(zs) == 0 {
		return time.Time{}, nil
	}
	return time.UnixMilli(int64(zs[0].Score)), nil
}

func msTime(v string) time.Time {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(int64(f))
}
