package store

import "fmt"

// luaTimers defines the Lua functions of delayed work (TimersKey):
//
// addTimer(member, ms, ctxid) adds member due at ms (unix ms, a string of
// digits) to TimersKey and, when it is now the earliest entry, announces
// it on TimersChannel so the context's timer wakes up.
//
// notYet(key, nowms) returns the due time (unix ms, a string) of the job
// hash at key when its run_at is later than nowms and its timer has not
// fired for that run_at yet, else nil (no run_at, a bad one, not a hash,
// already due). The claim's gate reads the fields it already has
// (claimgate_schedule.go).
var luaTimers = fmt.Sprintf(`
local timersKey, timersChannel, runAtField, firedField = %q, %q, %q, %q
local function addTimer(member, ms, ctxid)
  local first = redis.call('ZRANGE', timersKey, 0, 0, 'WITHSCORES')
  redis.call('ZADD', timersKey, ms, member)
  if first[2] == nil or tonumber(ms) < tonumber(first[2]) then
    redis.call('PUBLISH', timersChannel, ctxid .. ' ' .. ms)
  end
end
local function pushMember(list, entry) return %q .. list .. ' ' .. entry end
local function parsePush(m) return string.match(m, '^' .. %q .. '(%%S+) (%%S+)$') end
local function notYet(key, nowms)
  local r = redis.pcall('HMGET', key, runAtField, firedField)
  if r.err then return nil end
  local at = tonumber(r[1] or '')
  if not at or r[1] == r[2] then return nil end
  local ms = math.floor(at * 1000)
  if ms <= tonumber(nowms) then return nil end
  return string.format('%%d', ms)
end
`, TimersKey, TimersChannel, RunAtField, runAtFiredField, timerPushPrefix, timerPushPrefix)
