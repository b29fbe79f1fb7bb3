package store

import "fmt"

// Lua of ordering per key (queue_keyed.go). A job with a concurrency_key
// takes a place in keyed_running:<key> when a claim pops it and the key
// has room (fewer members than the job's max_in_flight, nobody parked
// before it); else the claim parks it at the tail of keyed:<key> and pops
// the next job instead. Every end of a job attempt (announceEnd) gives
// the place back and moves the oldest parked jobs, as many as now fit,
// to the head of their queues with their places taken for them, so the
// next claim runs them before anything else of that key: submission
// order holds whoever claims. A job put back for a retry keeps its place.
//
// Places of jobs that ended without announceEnd (a plain client's HSET,
// a deleted hash) are dropped when a key looks full (keyedRoom) and by the
// runner's repair pass (KeyedRepair), so no key stays taken by a job
// that is gone.

// luaKeyedCommon defines the functions both halves use:
// keyedMax(v), a max_in_flight field read as the gate reads it (1 when
// unset or bad); keyedRoom(k, max), whether key k has room for one more
// (dropping places of jobs that ended or vanished when it looks full);
// keyedStopped(job), whether a stop marker covers the job's attempt.
// keyedWaiting names KeyedWaitingKey (a script may set it from its KEYS).
var luaKeyedCommon = fmt.Sprintf(`
local keyedWaiting = %q
local function keyedMax(v)
  local n = tonumber(v or '')
  if not n or n < 1 then return 1 end
  return math.floor(n)
end
local function keyedRoom(k, max)
  local run = 'keyed_running:' .. k
  if redis.call('SCARD', run) < max then return true end
  for _, m in ipairs(redis.call('SMEMBERS', run)) do
    local st = redis.pcall('HGET', m, 'status')
    if type(st) ~= 'string' or st == 'finished' or st == 'error' then redis.call('SREM', run, m) end
  end
  return redis.call('SCARD', run) < max
end
local function keyedStopped(job, att)
  local s = redis.call('GET', 'stop:' .. job)
  if not s then return false end
  local a = tonumber(att or '') or 1
  return s == '0' or (tonumber(s) or 0) >= math.max(a, 1)
end
`, KeyedWaitingKey)

// luaKeyedRelease (luaAnnounceEnd includes it) defines keyedPromote(k),
// which moves the oldest parked jobs of key k that fit to the head of
// their queues, their places taken (a parked job that ended or vanished
// is dropped; one with a stop marker goes to its queue without a place,
// so its claim ends it at once), and keyedRelease(job), which gives the
// job's place back and promotes. Both return nothing.
var luaKeyedRelease = luaKeyedCommon + `
local function keyedPromote(k)
  local park, run = 'keyed:' .. k, 'keyed_running:' .. k
  local out = {}
  while true do
    local head = redis.call('LINDEX', park, 0)
    if not head then
      redis.call('SREM', keyedWaiting, k)
      break
    end
    local e = cjson.decode(head)
    local f = redis.pcall('HMGET', e[2], 'status', 'attempt', 'max_in_flight')
    if f.err or not f[1] or f[1] == 'finished' or f[1] == 'error' then
      redis.call('LPOP', park)
    elseif keyedStopped(e[2], f[2]) then
      redis.call('LPOP', park)
      out[#out + 1] = e
    elseif keyedRoom(k, keyedMax(f[3])) then
      redis.call('LPOP', park)
      redis.call('SADD', run, e[2])
      out[#out + 1] = e
    else
      break
    end
  end
  -- the head of a queue is its right end: push the oldest last
  for i = #out, 1, -1 do redis.call('RPUSH', out[i][1], out[i][2]) end
end
local function keyedRelease(job)
  local k = jobKnown[job] and jobKnown[job].concurrency_key or redis.call('HGET', job, 'concurrency_key')
  if not k or k == '' then return end
  if redis.call('SREM', 'keyed_running:' .. k, job) == 0 then return end
  keyedPromote(k)
end
`
