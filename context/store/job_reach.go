package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// Writes of the bridge about jobs sent to an agent that became unreachable
// (model.ExtraRunnerState and the fields beside it). None changes a job's
// status: seed clients keep reading the seed's enum.

// MarkUnreachable notes on job key (not ended, at attempt; 0 = any) that
// the agent it was sent to has been unreachable since since. A job marked
// already keeps its earlier time. It returns the time in effect and
// whether the job is marked; false when it has ended, moved on to another
// attempt or is gone.
func (s *Jobs) MarkUnreachable(ctx context.Context, ctxID uint64, key string, attempt int64,
	since time.Time) (time.Time, bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.MarkUnreachable: %w", err)
	}
	n, err := markUnreachable.Run(ctx, db, []string{key}, attemptArg(attempt), since.Unix()).Int64()
	if err != nil {
		return time.Time{}, false, fmt.Errorf("store.MarkUnreachable: %w", err)
	}
	return time.Unix(n, 0), n > 0, nil
}

// markUnreachable: see MarkUnreachable.
// KEYS[1] job key. ARGV[1] expected attempt or "", ARGV[2] since (unix s).
// Returns the unreachable_since in effect, or 0 when the job was not
// marked.
var markUnreachable = newScript("markUnreachable", luaTerminal, luaTimeline, `
local f = redis.call('HMGET', KEYS[1], 'status', 'attempt', '`+model.ExtraRunnerState+`', '`+model.ExtraUnreachableSince+`')
if not f[1] or terminal(f[1]) then return 0 end
if ARGV[1] ~= '' and (f[2] or '0') ~= ARGV[1] then return 0 end
if f[3] == '`+model.RunnerUnreachable+`' and tonumber(f[4] or '') then return tonumber(f[4]) end
redis.call('HSET', KEYS[1], '`+model.ExtraRunnerState+`', '`+model.RunnerUnreachable+`', '`+model.ExtraUnreachableSince+`', ARGV[2])
timeline(KEYS[1], 'unreachable', '')
return tonumber(ARGV[2])
`)

// ClearUnreachable removes job key's unreachable mark (its agent is back,
// or its result came), if the job is at attempt (0 = any): a mark made
// for a newer attempt, sent elsewhere, stays. A job not marked is left as
// it is.
func (s *Jobs) ClearUnreachable(ctx context.Context, ctxID uint64, key string, attempt int64) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.ClearUnreachable: %w", err)
	}
	if err := clearUnreachable.Run(ctx, db, []string{key}, attemptArg(attempt)).Err(); err != nil {
		return fmt.Errorf("store.ClearUnreachable: %w", err)
	}
	return nil
}

// clearUnreachable: see ClearUnreachable. KEYS[1] job key. ARGV[1]
// expected attempt or "". Returns 1 when a mark was removed, else 0.
var clearUnreachable = newScript("clearUnreachable", luaTimeline, `
local f = redis.call('HMGET', KEYS[1], '`+model.ExtraRunnerState+`', 'attempt')
if f[1] ~= '`+model.RunnerUnreachable+`' then return 0 end
if ARGV[1] ~= '' and (f[2] or '0') ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], '`+model.ExtraRunnerState+`', '`+model.ExtraUnreachableSince+`')
timeline(KEYS[1], 'reachable', '')
return 1
`)

// RecordLateResult keeps r on job key when r comes from the agent and
// attempt the job was given up on (model.ExtraLostRunner, ExtraLostAttempt).
// kept reports that r came from there; duplicate that this runner's result
// for that attempt was kept before, which then stays as it is (a resent
// result is not news).
// Nothing else of the job changes; from anyone else nothing is written.
func (s *Jobs) RecordLateResult(ctx context.Context, ctxID uint64, key string, r *model.LateResult) (kept, duplicate bool, err error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, false, fmt.Errorf("store.RecordLateResult: %w", err)
	}
	n, err := recordLateResult.Run(ctx, db, []string{key}, r.From, strconv.FormatInt(r.Attempt, 10), r.Encode()).Int64()
	if err != nil {
		return false, false, fmt.Errorf("store.RecordLateResult: %w", err)
	}
	return n > 0, n == 2, nil
}

// recordLateResult: see RecordLateResult. KEYS[1] job key. ARGV[1] the
// sender's peer ID, ARGV[2] its attempt, ARGV[3] the LateResult (JSON).
// Returns 1 when kept, 2 when one was kept before, else 0.
var recordLateResult = newScript("recordLateResult", `
local f = redis.call('HMGET', KEYS[1], '`+model.ExtraLostRunner+`', '`+model.ExtraLostAttempt+`')
if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] then return 0 end
local prev = redis.call('HGET', KEYS[1], '`+model.ExtraLateResult+`')
if prev then
  local ok, p = pcall(cjson.decode, prev)
  if ok and type(p) == 'table' and p['from'] == ARGV[1] and tostring(p['attempt']) == ARGV[2] then return 2 end
end
redis.call('HSET', KEYS[1], '`+model.ExtraLateResult+`', ARGV[3])
return 1
`)
