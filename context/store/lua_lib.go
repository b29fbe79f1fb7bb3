package store

// Lua functions that several scripts share, each a Go constant that
// defines local functions only (no top-level code, no KEYS or ARGV): a
// script names the ones it calls in its newScript call, and its body calls
// them with the keys and arguments it means. Kept shared only where a copy
// would be a large block or where the scripts' effects must not drift
// apart (every end of a job attempt announces it the same way).

// luaFence defines fence(key, attempt, to) (and moves, luaMoves): nil when
// the job at key may move to status to — it exists, it is at attempt
// (attempt "" = any; a job without one is at "0") and the lifecycle
// allows the move — else the error reply to return: "notfound: …",
// "fenced: …" or "transition: …".
var luaFence = luaMoves + `
local function fence(key, attempt, to)
  local cur = jobKnow(key)
  if not cur[1] and not cur[2] and redis.call('EXISTS', key) == 0 then
    return redis.error_reply('notfound: ' .. key)
  end
  local st = cur[1] or ''
  local att = cur[2] or ''
  if att == '' then att = '0' end
  if attempt ~= '' and attempt ~= att then
    return redis.error_reply('fenced: ' .. key .. ' is at attempt ' .. att .. ', not ' .. attempt)
  end
  if not moves(st, to) then
    return redis.error_reply('transition: ' .. key .. ' cannot go from "' .. st .. '" to "' .. to .. '"')
  end
  return nil
end
`

// luaJobKnown, which every script begins with (newScript, builtScript),
// defines jobKnown, what the script has read of a job's hash, by job key,
// so the functions it calls ask Redis once, not each for its own field:
// jobKnow(job) reads the fields the end of a job needs in one HMGET
// (status, attempt, flow_id, origin_peer, concurrency_key, timeline,
// lease), keeps them, and returns status and attempt as HMGET would
// ({status, attempt}, false when missing); once kept, it reads nothing,
// so it is for a script's first look at a job (fence). A script that
// writes one of those fields after jobKnow updates jobKnown[job] or drops
// it (requeueJob and retryJob drop it when the attempt moves).
const luaJobKnown = `local jobKnown = {}
local function jobKnow(job)
  local k = jobKnown[job]
  if k then return {k.status or false, k.attempt ~= '' and k.attempt or false} end
  local v = redis.call('HMGET', job, 'status', 'attempt', 'flow_id', 'origin_peer', 'concurrency_key', 'timeline', 'lease')
  jobKnown[job] = {status = v[1], flow_id = v[3], origin_peer = v[4], concurrency_key = v[5] or '',
    attempt = v[2] or '', timeline = v[6] or '', lease = v[7] or ''}
  return {v[1], v[2]}
end
`

// luaAnnounceEnd defines announceEnd(job, reply, jobsDone, remoteDone,
// status, ttl), what every end of a job attempt does once its status is
// written: push the status on the reply list (waiters wake; it expires
// after ttl seconds), the job key on jobs_done when the job belongs to a
// flow (the scheduler) and on remote_done when it came from another agent
// (origin_peer set: the bridge sends the result home). It also gives the
// job's place of its concurrency key back (keyedRelease, queue_keyed_lua.go)
// and settles the jobs that wait for this one (releaseWaiters,
// jobs_deps.go); announceOne is the same without that.
var luaAnnounceEnd = luaKeyedRelease + `
local function announceOne(job, reply, jobsDone, remoteDone, status, ttl)
  redis.call('LPUSH', reply, status)
  redis.call('EXPIRE', reply, tonumber(ttl))
  local k = jobKnown[job]
  local f = k and {k.flow_id, k.origin_peer} or redis.call('HMGET', job, 'flow_id', 'origin_peer')
  if f[1] and f[1] ~= '' and f[1] ~= '0' then redis.call('LPUSH', jobsDone, job) end
  if f[2] and f[2] ~= '' then redis.call('LPUSH', remoteDone, job) end
  keyedRelease(job)
end
` + luaDeps + `
local function announceEnd(job, reply, jobsDone, remoteDone, status, ttl)
  announceOne(job, reply, jobsDone, remoteDone, status, ttl)
  releaseWaiters(job, reply, jobsDone, remoteDone, ttl)
end
`

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

// luaLease defines the functions that hand a job to a runner and take it
// back. A lease is the job's entry in leases (its expiry) and its owner,
// "<attempt> <runner>" (leaseOwner), in the field lease of the job's hash
// (LeaseField), written with the job's own moves; a lease taken before
// the owner moved there, or of a key that is no job hash, keeps its owner
// in the hash lease_owners (owners), still read and cleared.
// leaseGet(owners, key) is the owner (false when none) and whether it is
// in owners; leasePut(owners, key, owner) writes it; lease(leases, owners,
// key, expiry, owner) leases key until expiry (unix ms) to owner;
// take(processing, leases, owners, key, expiry, owner) also pushes key on
// the runner's processing list; release(processing, leases, owners, key,
// owner, keep) drops key from the processing list and deletes its lease
// if owner still holds it (1 and whether the owner was in owners when it
// did, else 0), leaving the field to the caller with keep (it writes the
// job's hash next).
const luaLease = `
local function leaseGet(owners, key)
  local k = jobKnown[key]
  local v = k and k.lease
  if v == nil then
    v = redis.pcall('HGET', key, 'lease')
    if type(v) == 'table' then v = false end
  end
  if v and v ~= '' then return v, false end
  return redis.call('HGET', owners, key), true
end
local function leasePut(owners, key, owner)
  if redis.call('EXISTS', key) == 1 then
    local r = redis.pcall('HSET', key, 'lease', owner)
    if type(r) ~= 'table' then
      redis.call('HDEL', owners, key)
      if jobKnown[key] then jobKnown[key].lease = owner end
      return
    end
  end
  redis.call('HSET', owners, key, owner)
end
local function lease(leases, owners, key, expiry, owner)
  redis.call('ZADD', leases, expiry, key)
  leasePut(owners, key, owner)
end
local function take(processing, leases, owners, key, expiry, owner)
  redis.call('LPUSH', processing, key)
  lease(leases, owners, key, expiry, owner)
end
local function release(processing, leases, owners, key, owner, keep)
  redis.call('LREM', processing, 1, key)
  local v, old = leaseGet(owners, key)
  if v ~= owner then return 0 end
  redis.call('ZREM', leases, key)
  if old then
    redis.call('HDEL', owners, key)
  elseif not keep then
    redis.pcall('HDEL', key, 'lease')
    if jobKnown[key] then jobKnown[key].lease = '' end
  end
  return 1, old
end
`

// luaHsetJSON defines hsetobj(key, table) and hsetjson(key, json): HSET
// every field of a table (or of a JSON object) of strings, in chunks
// (unpack has a stack limit).
const luaHsetJSON = `
local function hsetobj(key, h)
  local args = {}
  for k, v in pairs(h) do
    args[#args + 1] = k
    args[#args + 1] = v
    if #args >= 200 then
      redis.call('HSET', key, unpack(args))
      args = {}
    end
  end
  if #args > 0 then redis.call('HSET', key, unpack(args)) end
end
local function hsetjson(key, json) hsetobj(key, cjson.decode(json)) end
`
