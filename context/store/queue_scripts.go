package store

import (
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// Lua scripts of the runner. They live here, beside scripts.go, because
// that file belongs to the foundation; same rules: one script per
// operation, KEYS and ARGV documented.

// claimJob takes the oldest job from the first non-empty queue, moves it
// into the runner's processing list and leases it, in one step.
// KEYS[1] processing:<runner>, KEYS[2] leases, KEYS[3] lease_owners,
// KEYS[4] dead_letter, KEYS[5..] queue:<type> in the order to try.
// ARGV[1] runner id, ARGV[2] lease expiry (unix ms), ARGV[3] now (unix s),
// ARGV[4] "run" (mark it started, and set script_type from the queue when
// the hash has none) or "reject" (lease it only); either way a missing
// attempt field is set to 1,
// ARGV[5] dead-letter list cap.
// It also reads and writes the popped job's hash and reads stop:<job key>,
// whose names are known only after the pop (contexts are DBs, so the
// contract is single-instance Redis anyway).
// Returns nil when every queue is empty, else {queue index (1 = KEYS[5]),
// job key, verdict, attempt, jobs left (0 when all the queues are empty,
// else the length of the queue taken from, or of the others), field, value, ...};
// verdict is run, stopped
// (a stop marker covers this attempt), rejected, or dead (unusable: already
// moved to dead_letter and out of the processing list, no lease).
var claimJob = redis.NewScript(luaStartable + luaTake + `
-- remaining says whether jobs are left: the length of queue i when it has
-- some (the common case: one LLEN), else the sum over the other queues.
local function remaining(i)
  local n = redis.call('LLEN', KEYS[i])
  if n > 0 then return n end
  for j = 5, #KEYS do
    if j ~= i then n = n + redis.call('LLEN', KEYS[j]) end
  end
  return n
end
local function dead(key, q, reason)
  redis.call('LREM', KEYS[1], 1, key)
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = q, reason = reason,
    runner = ARGV[1], at = tonumber(ARGV[3])}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
end
-- check returns the attempt to run, or nil and why the job is unusable.
local function check(key, h)
  if #h == 0 then return nil, 'job hash ' .. key .. ' does not exist' end
  local f = {}
  for j = 1, #h, 2 do f[h[j]] = h[j + 1] end
  local st, araw = f['status'] or '', f['attempt'] or ''
  local ok = startable(st)
  if ok == nil then return nil, 'unknown status "' .. st .. '"' end
  if not ok then return nil, 'job is already ' .. st .. '; re-dispatch it as a new attempt' end
  local att = 1
  if araw ~= '' then att = tonumber(araw) end
  if att == nil or att ~= math.floor(att) then return nil, 'bad attempt "' .. araw .. '"' end
  return math.max(att, 1), nil, (f['script_type'] or '') == ''
end
for i = 5, #KEYS do
  local key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')
  if key then
    local h = redis.call('HGETALL', key)
    local att, why, untyped = check(key, h)
    if not att then
      dead(key, KEYS[i], why)
      return {i - 4, key, 'dead', '0', remaining(i)}
    end
    local verdict = 'run'
    local stop = redis.call('GET', 'stop:' .. key)
    if stop and (stop == '0' or (tonumber(stop) or 0) >= att) then
      verdict = 'stopped'
    elseif ARGV[4] == 'reject' then
      verdict = 'rejected'
    end
    if verdict ~= 'run' then
      redis.call('HSET', key, 'attempt', tostring(att))
    elseif untyped then
      redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
        'script_type', string.sub(KEYS[i], 7))
    else
      redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3])
    end
    lease(KEYS[2], KEYS[3], key, ARGV[2], tostring(att) .. ' ' .. ARGV[1])
    local out = {i - 4, key, verdict, tostring(att), remaining(i)}
    for j = 1, #h do out[#out + 1] = h[j] end
    return out
  end
end
return nil
`)

// luaStartable is a Lua function: startable(status) says whether a job in
// it may be started, nil for no known status (generated from
// model.JobMoves, like luaMoves).
var luaStartable = luaJobFunc("startable", "_", func(st model.JobStatus) string {
	return fmt.Sprint(st.CanMoveTo(model.JobStarted))
})

// takeQueued moves one named job from its queue into a processing list
// with a lease (used to stop a job that has not started).
// KEYS[1] queue:<type>, KEYS[2] processing:<runner>, KEYS[3] leases,
// KEYS[4] lease_owners. ARGV[1] job key, ARGV[2] owner value, ARGV[3]
// lease expiry (unix ms). Returns how many entries were taken (0 or more).
var takeQueued = redis.NewScript(luaTake + `
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n == 0 then return 0 end
take(KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[3], ARGV[2])
return n
`)

// luaTake defines the Lua functions that take a job for a runner:
// lease(leases, owners, key, expiry, owner) leases key until expiry (unix
// ms) to owner (the lease_owners value "<attempt> <runner>", leaseOwner);
// take(processing, leases, owners, key, expiry, owner) also pushes key on
// the runner's processing list.
const luaTake = `
local function lease(leases, owners, key, expiry, owner)
  redis.call('ZADD', leases, expiry, key)
  redis.call('HSET', owners, key, owner)
end
local function take(processing, leases, owners, key, expiry, owner)
  redis.call('LPUSH', processing, key)
  lease(leases, owners, key, expiry, owner)
end
`

// releaseLease drops a job from a processing list and deletes its lease if
// the given owner still holds it.
// KEYS[1] processing:<runner>, KEYS[2] leases, KEYS[3] lease_owners.
// ARGV[1] job key, ARGV[2] owner value "<attempt> <runner>".
// Returns 1 when the lease was deleted, 0 when someone else holds it.
var releaseLease = redis.NewScript(`
redis.call('LREM', KEYS[1], 1, ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[1]) == ARGV[2] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  return 1
end
return 0
`)

// completeLeased is releaseLease followed by completeJob, in one step: the
// lease goes whatever the completion answers (a fenced attempt still gives
// its lease up), then the attempt ends with completeJob's effects exactly.
// KEYS[1] job key, KEYS[2] reply:<job key>, KEYS[3] jobs_done,
// KEYS[4] remote_done, KEYS[5] processing:<runner>, KEYS[6] leases,
// KEYS[7] lease_owners.
// ARGV[1] expected attempt or "", ARGV[2] finished|error, ARGV[3] now,
// ARGV[4] reply TTL seconds, ARGV[5] lease owner value "<attempt> <runner>",
// ARGV[6..] field, value pairs.
var completeLeased = redis.NewScript(`
redis.call('LREM', KEYS[5], 1, KEYS[1])
if redis.call('HGET', KEYS[7], KEYS[1]) == ARGV[5] then
  redis.call('ZREM', KEYS[6], KEYS[1])
  redis.call('HDEL', KEYS[7], KEYS[1])
end
` + luaMoves + luaCheck + luaComplete(6))

// renewLeases extends the leases a runner still holds and reports the ones
// it lost and the ones with a stop marker.
// KEYS[1] leases, KEYS[2] lease_owners. ARGV[1] new expiry (unix ms),
// ARGV[2] runner id, ARGV[3..] job key, attempt pairs. Reads stop:<job key>.
// Returns {{"<attempt> <job key>" of each lost lease}, {stopped job keys}}.
var renewLeases = redis.NewScript(`
local lost, stopped = {}, {}
for i = 3, #ARGV, 2 do
  local key, att = ARGV[i], ARGV[i + 1]
  if redis.call('HGET', KEYS[2], key) == att .. ' ' .. ARGV[2] then
    redis.call('ZADD', KEYS[1], ARGV[1], key)
  else
    lost[#lost + 1] = att .. ' ' .. key
  end
  local s = redis.call('GET', 'stop:' .. key)
  if s and (s == '0' or (tonumber(s) or 0) >= tonumber(att)) then
    stopped[#stopped + 1] = key
  end
end
return {lost, stopped}
`)

// takeLease hands a lease to a new owner if the expected owner still holds
// it (and, when ARGV[5] is set, only if it expired).
// KEYS[1] leases, KEYS[2] lease_owners. ARGV[1] job key, ARGV[2] expected
// owner value ("" = no owner entry), ARGV[3] new owner value, ARGV[4] new expiry (unix ms),
// ARGV[5] now (unix ms) to require expiry, or "". Returns 1 when taken.
var takeLease = redis.NewScript(`
if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[2] then return 0 end
if ARGV[5] ~= '' then
  local sc = redis.call('ZSCORE', KEYS[1], ARGV[1])
  if sc and tonumber(sc) > tonumber(ARGV[5]) then return 0 end
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
return 1
`)

// markStop records a stop request for a job and announces it as
// "<context id> <job key> <attempt>".
// KEYS[1] job key, KEYS[2] stop:<job key>. ARGV[1] marker TTL (s),
// ARGV[2] channel, ARGV[3] context id.
// Returns {status, attempt ("0" when unset), script_type} or an error
// "notfound: …". The marker holds the attempt ("1" when unset).
var markStop = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('notfound: ' .. KEYS[1]) end
local h = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'script_type')
local att = h[2] or ''
if att == '' then att = '0' end
local mark = att
if mark == '0' then mark = '1' end
redis.call('SET', KEYS[2], mark, 'EX', tonumber(ARGV[1]))
redis.call('PUBLISH', ARGV[2], ARGV[3] .. ' ' .. KEYS[1] .. ' ' .. mark)
return {h[1] or '', att, h[3] or ''}
`)

// appendLogs appends lines to a job's capped log list (luaAppendLines).
// KEYS[1] logs:<job key>. ARGV[1] cap (lines), ARGV[2] channel,
// ARGV[3] marker line, ARGV[4..] lines. Returns the list's length.
var appendLogs = redis.NewScript(luaAppendLines + `
return appendLines(KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3], {unpack(ARGV, 4)})
`)

// luaAppendLines defines appendLines(key, cap, channel, marker, lines):
// it appends lines to a job's capped log list — past the cap one marker
// line is added and the rest dropped — announces the new length on
// channel and returns it.
const luaAppendLines = `
local function appendLines(key, cap, channel, marker, lines)
  local n = redis.call('LLEN', key)
  if n > cap then return n end
  local given = #lines
  local take = math.min(given, cap - n)
  if take > 0 then
    redis.call('RPUSH', key, unpack(lines, 1, take))
    n = n + take
  end
  if take < given then
    redis.call('RPUSH', key, marker)
    n = n + 1
  end
  redis.call('PUBLISH', channel, n)
  return n
end
`

// heroFinish writes a hero job's final fields, answers on its reply list
// and drops it from the worker's processing list.
// KEYS[1] hero:job:<id>, KEYS[2] hero:reply:<id>, KEYS[3]
// hero:processing:<worker>. ARGV[1] job id, ARGV[2] reply payload,
// ARGV[3] reply TTL (s), ARGV[4..] field, value pairs.
var heroFinish = redis.NewScript(`
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
redis.call('LREM', KEYS[3], 0, ARGV[1])
return 1
`)

// heroTakeQueued moves a hero job id out of the work queue into the
// worker's processing list if it is still queued.
// KEYS[1] hero:work_queue:<worker>, KEYS[2] hero:processing:<worker>.
// ARGV[1] job id. Returns how many entries were removed from the queue.
var heroTakeQueued = redis.NewScript(`
local n = redis.call('LREM', KEYS[1], 0, ARGV[1])
if n > 0 then redis.call('LPUSH', KEYS[2], ARGV[1]) end
return n
`)

// heroPutBack moves a hero job id from the processing list back to the
// head (left, where workers BLPOP) of the work queue.
// KEYS[1] hero:processing:<worker>, KEYS[2] hero:work_queue:<worker>.
// ARGV[1] job id.
var heroPutBack = redis.NewScript(`
if redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0 then
  redis.call('LPUSH', KEYS[2], ARGV[1])
end
return 1
`)
