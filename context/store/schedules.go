package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Keys of flow schedules (context DB). Like keys.go, these helpers are
// the only place these names are built.

// ScheduleKey is schedule:<name>, the hash of one flow schedule: the flow
// (JSON), cron, timezone, catch_up, overlap, caller_id, paused, last_tick
// and next_tick (unix ms), last_flow, runs, skipped, created_at, updated_at.
func ScheduleKey(name string) string { return "schedule:" + name }

// SchedulesKey is the SET of the context's schedule names.
const SchedulesKey = "schedules"

// SchedulesDueKey is the ZSET of active schedules: member = name, score =
// the next tick (unix ms). A paused schedule is not in it.
const SchedulesDueKey = "schedules_due"

// luaAddDue defines addDue(zkey, member, ms, ctxid): ZADD, announcing on
// TimersChannel when member is now zkey's earliest entry, so the context's
// timer wakes up for it.
var luaAddDue = fmt.Sprintf(`
local function addDue(zkey, member, ms, ctxid)
  local first = redis.call('ZRANGE', zkey, 0, 0, 'WITHSCORES')
  redis.call('ZADD', zkey, ms, member)
  if first[2] == nil or tonumber(ms) < tonumber(first[2]) then
    redis.call('PUBLISH', %q, ctxid .. ' ' .. ms)
  end
end
`, TimersChannel)

// SaveSchedule writes schedule name (fields h) and, unless h says paused,
// makes it due at next. A schedule saved again keeps its last_tick, runs
// and skipped, so a tick it fired is never fired again.
func (s *Timing) SaveSchedule(ctx context.Context, ctxID uint64, name string, h model.Hash, next time.Time) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SaveSchedule: %w", err)
	}
	h["name"], h["next_tick"] = name, strconv.FormatInt(next.UnixMilli(), 10)
	stampHash(h)
	keys := []string{ScheduleKey(name), SchedulesKey, SchedulesDueKey}
	args := append([]any{name, next.UnixMilli(), ctxID}, pairs(h)...)
	return scriptErr("store.SaveSchedule", saveSchedule.Run(ctx, db, keys, args...).Err())
}

// saveSchedule: see SaveSchedule. KEYS[1] schedule:<name>, KEYS[2]
// schedules, KEYS[3] schedules_due. ARGV[1] name, ARGV[2] next tick (unix
// ms), ARGV[3] context id, ARGV[4..] field, value pairs.
var saveSchedule = newScript("saveSchedule", luaAddDue, `
local keep = redis.call('HMGET', KEYS[1], 'last_tick', 'runs', 'skipped', 'created_at', 'last_flow')
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
local names = {'last_tick', 'runs', 'skipped', 'created_at', 'last_flow'}
for i, f in ipairs(names) do
  if keep[i] then redis.call('HSET', KEYS[1], f, keep[i]) end
end
redis.call('SADD', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[1], 'paused') == 'true' then
  redis.call('ZREM', KEYS[3], ARGV[1])
else
  addDue(KEYS[3], ARGV[1], ARGV[2], ARGV[3])
end
return 1
`)

func stampHash(h model.Hash) {
	t := strconv.FormatInt(now(), 10)
	if h["created_at"] == "" {
		h["created_at"] = t
	}
	h["updated_at"] = t
}

// LoadSchedule reads schedule name; ErrNotFound when there is none.
func (s *Timing) LoadSchedule(ctx context.Context, ctxID uint64, name string) (model.Hash, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadSchedule: %w", err)
	}
	h, err := db.HGetAll(ctx, ScheduleKey(name)).Result()
	if err != nil {
		return nil, fmt.Errorf("store.LoadSchedule %s: %w", name, err)
	}
	if len(h) == 0 {
		return nil, fmt.Errorf("store.LoadSchedule: schedule %q: %w", name, ErrNotFound)
	}
	return h, nil
}

// ListSchedules reads every schedule of the context.
func (s *Timing) ListSchedules(ctx context.Context, ctxID uint64) ([]model.Hash, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListSchedules: %w", err)
	}
	names, err := db.SMembers(ctx, SchedulesKey).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ListSchedules: %w", err)
	}
	out := make([]model.Hash, 0, len(names))
	for _, n := range names {
		h, err := s.LoadSchedule(ctx, ctxID, n)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// DueSchedule is a schedule whose tick has come.
type DueSchedule struct {
	Name string
	Tick time.Time // the tick it is due for (next_tick)
}

// DueSchedules lists the schedules due at now and the next tick after
// them (zero when none is).
func (s *Timing) DueSchedules(ctx context.Context, ctxID uint64, now time.Time) ([]DueSchedule, time.Time, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("store.DueSchedules: %w", err)
	}
	zs, err := db.ZRangeByScoreWithScores(ctx, SchedulesDueKey, &redis.ZRangeBy{
		Min: "-inf", Max: strconv.FormatInt(now.UnixMilli(), 10)}).Result()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("store.DueSchedules: %w", err)
	}
	due := make([]DueSchedule, 0, len(zs))
	for _, z := range zs {
		n, _ := z.Member.(string)
		due = append(due, DueSchedule{Name: n, Tick: time.UnixMilli(int64(z.Score))})
	}
	later, err := db.ZRangeByScoreWithScores(ctx, SchedulesDueKey, &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(now.UnixMilli(), 10), Max: "+inf", Count: 1}).Result()
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("store.DueSchedules: %w", err)
	}
	var next time.Time
	if len(later) > 0 {
		next = time.UnixMilli(int64(later[0].Score))
	}
	return due, next, nil
}

// ClaimTick records that schedule name handled its tick due (the tick
// recorded is tick, the latest one passed) and makes it due next; counter
// ("runs" or "skipped") counts it. It reports false, changing nothing,
// when another agent (or an earlier call) handled that due tick already,
// when the schedule was paused or removed meanwhile, or when last_tick is
// not before tick: so a tick never starts two runs, even across restarts.
func (s *Timing) ClaimTick(ctx context.Context, ctxID uint64, name string, due, tick, next time.Time, counter string, skippedMore int64) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.ClaimTick: %w", err)
	}
	keys := []string{ScheduleKey(name), SchedulesDueKey}
	n, err := claimTick.Run(ctx, db, keys, name, due.UnixMilli(), tick.UnixMilli(), next.UnixMilli(),
		counter, skippedMore, ctxID, now()).Int64()
	if err != nil {
		return false, scriptErr("store.ClaimTick", err)
	}
	return n == 1, nil
}

// claimTick: see ClaimTick. KEYS[1] schedule:<name>, KEYS[2]
// schedules_due. ARGV[1] name, ARGV[2] the due tick (unix ms, its score),
// ARGV[3] the tick to record, ARGV[4] the next tick, ARGV[5] the counter
// to add one to, ARGV[6] more to add to skipped (missed ticks), ARGV[7]
// context id, ARGV[8] now (unix s). Returns 1 when claimed, else 0.
var claimTick = newScript("claimTick", luaAddDue, `
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_tick') or '0') or 0
if last >= tonumber(ARGV[3]) then
  addDue(KEYS[2], ARGV[1], ARGV[4], ARGV[7])
  return 0
end
redis.call('HSET', KEYS[1], 'last_tick', ARGV[3], 'next_tick', ARGV[4], 'updated_at', ARGV[8])
redis.call('HINCRBY', KEYS[1], ARGV[5], 1)
if tonumber(ARGV[6]) > 0 then redis.call('HINCRBY', KEYS[1], 'skipped', ARGV[6]) end
addDue(KEYS[2], ARGV[1], ARGV[4], ARGV[7])
return 1
`)

// SetScheduleFields writes fields of schedule name if it still exists.
func (s *Timing) SetScheduleFields(ctx context.Context, ctxID uint64, name string, h model.Hash) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SetScheduleFields: %w", err)
	}
	err = setIfExists.Run(ctx, db, []string{ScheduleKey(name)}, pairs(h)...).Err()
	return scriptErr("store.SetScheduleFields", err)
}

// setIfExists: KEYS[1] a hash; ARGV field, value pairs, written only when
// the hash exists. Returns 1 when written.
var setIfExists = newScript("setIfExists", `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`)

// PauseSchedule stops schedule name from firing until ResumeSchedule.
func (s *Timing) PauseSchedule(ctx context.Context, ctxID uint64, name string) error {
	return s.pauseResume(ctx, ctxID, name, "true", time.Time{})
}

// ResumeSchedule makes a paused schedule fire again, next at next.
func (s *Timing) ResumeSchedule(ctx context.Context, ctxID uint64, name string, next time.Time) error {
	return s.pauseResume(ctx, ctxID, name, "false", next)
}

func (s *core) pauseResume(ctx context.Context, ctxID uint64, name, paused string, next time.Time) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.PauseSchedule: %w", err)
	}
	keys := []string{ScheduleKey(name), SchedulesDueKey}
	n, err := pauseSchedule.Run(ctx, db, keys, name, paused, next.UnixMilli(), ctxID, now()).Int64()
	if err != nil {
		return scriptErr("store.PauseSchedule", err)
	}
	if n == 0 {
		return fmt.Errorf("store.PauseSchedule: schedule %q: %w", name, ErrNotFound)
	}
	return nil
}

// pauseSchedule: KEYS[1] schedule:<name>, KEYS[2] schedules_due. ARGV[1]
// name, ARGV[2] "true" (pause) or "false" (resume), ARGV[3] next tick
// (unix ms, resume), ARGV[4] context id, ARGV[5] now (unix s). Returns 0
// when there is no such schedule.
var pauseSchedule = newScript("pauseSchedule", luaAddDue, `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused', ARGV[2], 'updated_at', ARGV[5])
if ARGV[2] == 'true' then
  redis.call('ZREM', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[1], 'next_tick', ARGV[3])
  addDue(KEYS[2], ARGV[1], ARGV[3], ARGV[4])
end
return 1
`)

// RemoveSchedule deletes schedule name (its runs stay); ErrNotFound when
// there is none.
func (s *Timing) RemoveSchedule(ctx context.Context, ctxID uint64, name string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.RemoveSchedule: %w", err)
	}
	var del *redis.IntCmd
	_, err = db.TxPipelined(ctx, func(p redis.Pipeliner) error {
		del = p.Del(ctx, ScheduleKey(name))
		p.ZRem(ctx, SchedulesDueKey, name)
		p.SRem(ctx, SchedulesKey, name)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store.RemoveSchedule: %w", err)
	}
	if del.Val() == 0 {
		return fmt.Errorf("store.RemoveSchedule: schedule %q: %w", name, ErrNotFound)
	}
	return nil
}
