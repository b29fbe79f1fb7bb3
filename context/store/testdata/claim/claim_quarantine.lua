-- claim_quarantine: one job claim (context/store/claim_build.go builds it from claimGates,
-- claim_gates.go; go test ./context/store -run ClaimGolden -update rewrites this file).
-- Takes the oldest job of the first non-empty queue into processing:<runner>
-- with a lease, through these gates, in order:
--   usable: an entry that is no job to run (missing, not a hash, ended; or invalid): dead-lettered
--   stopped: a job a stop marker covers: leased, verdict stopped
--   rejected: every job of a claim in reject mode: leased, verdict rejected
--   quarantine: an attempt after quarantine.after_failures failed ones in a row: ended error, dead-lettered
-- Lacks settle, schedule, deps, keyed, invalid, idempotency: a job that needs one goes back to the head of its
-- queue untouched, and the reply names the gates it needs.
-- KEYS[1] processing:<runner>
-- KEYS[2] leases
-- KEYS[3] lease_owners
-- KEYS[4] dead_letter
-- KEYS[5] jobs_done
-- KEYS[6] remote_done
-- KEYS[7] dead_letter:counts
-- KEYS[8] timers
-- KEYS[9] deps_waiting
-- KEYS[10] prereq_waiting
-- KEYS[11] job_changes
-- KEYS[12] keyed_waiting
-- KEYS[13..] queue:<type>, in the order to try
-- ARGV[1] runner id
-- ARGV[2] lease expiry (unix ms)
-- ARGV[3] now (unix s)
-- ARGV[4] "run" (mark it started) or "reject" (lease it only)
-- ARGV[5] dead-letter list cap
-- ARGV[6] reply list TTL (s)
-- ARGV[7] the reply list's key prefix (ReplyKey of "")
-- ARGV[8] now (unix ms)
-- ARGV[9] the context id
-- ARGV[10] idempotency record TTL (ms; 0: no key is checked)
-- ARGV[11] failures in a row that quarantine (0: never)
-- Keys named only once the job is popped, so in no KEYS:
--   <job>: the popped job's hash
--   stop:<job>
--   quarantine: when it quarantines: reply:<job>, dep_waiters:<job>, keyed_running:<its key>, and the jobs they release
-- Returns nil when every queue is empty; {0, job key, 'gates', flags, 0}
-- when the job needs gates this variant lacks ('' for the key when the
-- claim needs them before it pops); else {queue index (1 =
-- the first queue), job key, verdict, attempt, jobs left (0 when the
-- queues are empty after this one), then field, value, … as popped} with
-- verdict run, stopped or rejected; dead or invalid (dead-lettered, no
-- lease) with the reason instead of the fields; screened (started,
-- leased, then ended by a screen) with the reason before the fields.
local jobKnown = {}
local function jobKnow(job)
  local k = jobKnown[job]
  if k then return {k.status or false, k.attempt ~= '' and k.attempt or false} end
  local v = redis.call('HMGET', job, 'status', 'attempt', 'flow_id', 'origin_peer', 'concurrency_key', 'timeline', 'lease')
  jobKnown[job] = {status = v[1], flow_id = v[3], origin_peer = v[4], concurrency_key = v[5] or '',
    attempt = v[2] or '', timeline = v[6] or '', lease = v[7] or ''}
  return {v[1], v[2]}
end
local function startable(st, _)
  if st == "" then return true
  elseif st == "dispatched" then return true
  elseif st == "error" then return false
  elseif st == "finished" then return false
  elseif st == "started" then return true
  elseif st == "waiting_for_prerequisites" then return true
  end
  return nil
end

local function runAtAhead(f, nowms)
  local at = tonumber(f["run_at"] or '')
  if not at or f["run_at"] == f["run_at_fired"] then return nil end
  local ms = math.floor(at * 1000)
  if ms <= tonumber(nowms) then return nil end
  return string.format('%d', ms)
end

local function hasDeps(f)
  local d, p = f['dependends'], f['prerequisites']
  return (d ~= nil and d ~= '' and d ~= '[]') or (p ~= nil and p ~= '' and p ~= '[]')
end
local statusList = "dispatched, error, finished, started, waiting_for_prerequisites"

local function fieldsFault(f)
  local st, araw = f['status'] or '', f['attempt'] or ''
  local ok = startable(st)
  if ok == nil then return 'invalid job: status "' .. st .. '" is not one of ' .. statusList end
  if not ok or araw == '' then return nil end
  local att = tonumber(araw)
  if att == nil or att ~= math.floor(att) then
    return 'invalid job: attempt "' .. araw .. '" is not a whole number'
  end
  return nil
end

local function ownIdemKey(f)
  local flow = f['flow_id']
  if (f["origin_peer"] or '') ~= '' or (flow and flow ~= '' and flow ~= '0') or f["idempotency_held"] == 'true' then return '' end
  return f["idempotency_key"] or ''
end

local function quarantineDue(f)
  local n = tonumber(ARGV[11]) or 0
  if ARGV[4] == 'reject' or n <= 0 then return false end
  local araw, att = f['attempt'] or '', 1
  if araw ~= '' then att = tonumber(araw) end
  if att == nil or att ~= math.floor(att) then return false end
  local b, base = f["quarantine_base"] or '', 0
  if string.match(b, '^[+-]?%d+$') then base = tonumber(b) end
  return math.max(att, 1) - 1 - base >= n
end

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

local jobChanges = "job_changes"
local nowMS = nil
local function timelineNext(job, event, detail)
  local ms = nowMS
  if not ms then
    local tm = redis.call('TIME')
    ms = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
  end
  local k = jobKnown[job]
  if not k then
    local v = redis.call('HMGET', job, 'attempt', 'timeline')
    k = {attempt = v[1] or '', timeline = v[2] or ''}
  end
  local att = tonumber(k.attempt) or 0
  local e = {t = ms, e = event, a = att}
  if detail == nil or (detail == '' and event == 'error') then detail = redis.call('HGET', job, 'error') or '' end
  if detail and detail ~= '' then e.d = string.sub(detail, 1, 300) end
  local list = {}
  if k.timeline ~= '' then
    local ok, l = pcall(cjson.decode, k.timeline)
    if ok and type(l) == 'table' then list = l end
  end
  list[#list + 1] = e
  while #list > 100 do table.remove(list, 1) end
  local raw = cjson.encode(list)
  if jobKnown[job] then jobKnown[job].timeline = raw end
  redis.call('ZADD', jobChanges, ms, job)
  if ms % 16 == 0 then
    redis.call('ZREMRANGEBYSCORE', jobChanges, '-inf', ms - 600000)
    redis.call('ZREMRANGEBYRANK', jobChanges, 0, -50001)
  end
  return raw
end
local function timeline(job, event, detail)
  redis.call('HSET', job, 'timeline', timelineNext(job, event, detail))
end

local function check(key, h, f)
  if h.err then
    return nil, 'invalid job: ' .. key .. ' is a ' .. redis.call('TYPE', key).ok .. ', not a job hash'
  end
  if #h == 0 then return nil, 'job hash ' .. key .. ' does not exist' end
  local fault = fieldsFault(f)
  if fault then return nil, fault, true end
  local st, araw = f['status'] or '', f['attempt'] or ''
  if not startable(st) then return nil, 'job is already ' .. st .. '; re-dispatch it as a new attempt' end
  local att = 1
  if araw ~= '' then att = tonumber(araw) end
  return math.max(att, 1), nil, false, (f['script_type'] or '') == ''
end
local function deadLetter(key, queue, why, class)
  redis.call('LREM', KEYS[1], 1, key)
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = queue, reason = why,
    runner = ARGV[1], at = tonumber(ARGV[3]), class = class}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
  redis.call('HINCRBY', KEYS[7], class, 1)
end

local function stopMarked(key, att)
  local stop = redis.call('GET', 'stop:' .. key)
  if stop and (stop == '0' or (tonumber(stop) or 0) >= att) then return 'stopped' end
  return nil
end

local keyedWaiting = "keyed_waiting"
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

local function announceOne(job, reply, jobsDone, remoteDone, status, ttl)
  redis.call('LPUSH', reply, status)
  redis.call('EXPIRE', reply, tonumber(ttl))
  local k = jobKnown[job]
  local f = k and {k.flow_id, k.origin_peer} or redis.call('HMGET', job, 'flow_id', 'origin_peer')
  if f[1] and f[1] ~= '' and f[1] ~= '0' then redis.call('LPUSH', jobsDone, job) end
  if f[2] and f[2] ~= '' then redis.call('LPUSH', remoteDone, job) end
  keyedRelease(job)
end

local depsWaiting, prereqWaiting, waitersPrefix, prereqPrefix = "deps_waiting", "prereq_waiting", "dep_waiters:", "prereq:"
local recheckMs, recheckBatch = 1000, 16
local function depList(v)
  local out = {}
  if not v or v == '' or v == '[]' then return out end
  local ok, t = pcall(cjson.decode, v)
  if not ok or type(t) ~= 'table' then return out end
  for _, x in ipairs(t) do
    if type(x) == 'number' then out[#out + 1] = string.format('%.0f', x)
    elseif type(x) == 'string' then out[#out + 1] = x end
  end
  return out
end
local function depState(key)
  local f = redis.pcall('HMGET', key, 'flow_id', 'dependends', 'prerequisites', 'upstream_in', 'caller_id')
  if f.err then return 'ready' end
  local flow = f[1] and f[1] ~= '' and f[1] ~= '0'
  local waits, names = {}, {}
  if not flow then
    local prefix = string.match(key, '^(job:[^:]+:)')
    if not prefix then prefix = 'job:' .. (f[5] or '') .. ':' end
    for _, id in ipairs(depList(f[2])) do
      local up = prefix .. id
      if up == key then return 'impossible', 'impossible: job ' .. id .. ' is the job itself' end
      local st = redis.pcall('HGET', up, 'status')
      if st == 'error' then return 'impossible', 'impossible: job ' .. id .. ' ended error' end
      if st ~= 'finished' then waits[#waits + 1] = up end
    end
  end
  if not flow or f[4] == 'dependends' then
    for _, n in ipairs(depList(f[3])) do
      if redis.call('EXISTS', prereqPrefix .. n) == 0 then names[#names + 1] = n end
    end
  end
  if #waits == 0 and #names == 0 then return 'ready' end
  return 'wait', waits, names
end
local function park(key, list, waits, names, nowms)
  redis.call('HSET', key, 'status', 'waiting_for_prerequisites',
    'updated_at', string.format('%d', math.floor(tonumber(nowms) / 1000)))
  redis.call('HSET', depsWaiting, key, list)
  for _, up in ipairs(waits) do redis.call('SADD', waitersPrefix .. up, key) end
  if #names > 0 then
    redis.call('ZADD', prereqWaiting, tonumber(nowms) + recheckMs, key)
  else
    redis.call('ZREM', prereqWaiting, key)
  end
end
local function unpark(key)
  redis.call('HDEL', depsWaiting, key)
  redis.call('ZREM', prereqWaiting, key)
end
local function settle(key, nowms, replyPrefix, jobsDone, remoteDone, ttl)
  local list = redis.call('HGET', depsWaiting, key)
  local st = redis.pcall('HGET', key, 'status')
  if not list or st ~= 'waiting_for_prerequisites' then
    unpark(key)
    return 'gone'
  end
  local state, a, b = depState(key)
  if state == 'ready' then
    unpark(key)
    redis.call('LPUSH', list, key)
    return 'queued'
  elseif state == 'impossible' then
    unpark(key)
    redis.call('HSET', key, 'status', 'error', 'error', a, 'updated_at', string.format('%d', math.floor(tonumber(nowms) / 1000)))
    announceOne(key, replyPrefix .. key, jobsDone, remoteDone, 'error', ttl)
    return 'ended'
  end
  park(key, list, a, b, nowms)
  return 'waiting'
end
local function releaseWaiters(job, reply, jobsDone, remoteDone, ttl)
  local work, i = {job}, 1
  local replyPrefix = string.sub(reply, 1, #reply - #job)
  local nowms = nil
  while i <= #work do
    local wk = waitersPrefix .. work[i]
    i = i + 1
    local ws = redis.call('SMEMBERS', wk)
    if #ws > 0 then
      redis.call('DEL', wk)
      if not nowms then -- the end just written is now (no TIME: embedded servers)
        nowms = string.format('%d', (tonumber(redis.pcall('HGET', job, 'updated_at')) or 0) * 1000)
      end
      for _, w in ipairs(ws) do
        if settle(w, nowms, replyPrefix, jobsDone, remoteDone, ttl) == 'ended' then work[#work + 1] = w end
      end
    end
  end
end
local function recheckPrereqs(nowms, replyPrefix, jobsDone, remoteDone, ttl)
  local due = redis.call('ZRANGEBYSCORE', prereqWaiting, '-inf', nowms, 'LIMIT', 0, recheckBatch)
  for _, w in ipairs(due) do
    if settle(w, nowms, replyPrefix, jobsDone, remoteDone, ttl) == 'ended' then
      releaseWaiters(w, replyPrefix .. w, jobsDone, remoteDone, ttl)
    end
  end
end

local function announceEnd(job, reply, jobsDone, remoteDone, status, ttl)
  announceOne(job, reply, jobsDone, remoteDone, status, ttl)
  releaseWaiters(job, reply, jobsDone, remoteDone, ttl)
end

local function refuse(key, att, why, fields, event)
  redis.call('HSET', key, 'status', 'error', 'error', why, 'updated_at', ARGV[3], unpack(fields))
  release(KEYS[1], KEYS[2], KEYS[3], key, tostring(att) .. ' ' .. ARGV[1])
  announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
  if event then timeline(key, event, why) end
  timeline(key, 'error', why)
end

local function quarantineScreen(key, f, att, queue)
  if not quarantineDue(f) then return nil end
  local n = tonumber(ARGV[11])
  local failed = att - 1 - (tonumber(f["quarantine_base"] or '0') or 0)
  if failed < n then return nil end
  local why = 'quarantined: ' .. failed .. ' attempts failed in a row (quarantine.after_failures ' .. n ..
    '); last error: ' .. (f['error'] or '')
  refuse(key, att, why, {'quarantined', why, "quarantine_base", tostring(att)}, 'quarantined')
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = queue, reason = why,
    runner = ARGV[1], at = tonumber(ARGV[3]), class = 'failures'}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
  redis.call('HINCRBY', KEYS[7], 'failures', 1)
  return why
end
-- the fixed keys the fragments above name, from KEYS
depsWaiting = KEYS[9]
prereqWaiting = KEYS[10]
jobChanges = KEYS[11]
keyedWaiting = KEYS[12]
if #redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', ARGV[8], 'LIMIT', 0, 1) > 0 then return {0, '', 'gates', 1, 0} end -- settle
local first = 13
local function remaining(i)
  local n = redis.call('LLEN', KEYS[i])
  if n > 0 then return n end
  for j = first, #KEYS do
    if j ~= i then n = n + redis.call('LLEN', KEYS[j]) end
  end
  return n
end
local function fieldsOf(h)
  if h.err then return nil end
  local f = {}
  for j = 1, #h, 2 do f[h[j]] = h[j + 1] end
  return f
end
local function missing(f)
  local m = 0
  if runAtAhead(f, ARGV[8]) then m = m + 2 end -- schedule
  if hasDeps(f) then m = m + 4 end -- deps
  if (f['concurrency_key'] or '') ~= '' then m = m + 8 end -- keyed
  if next(f) ~= nil and fieldsFault(f) ~= nil then m = m + 16 end -- invalid
  if ARGV[4] ~= 'reject' and ARGV[10] ~= '0' and ownIdemKey(f) ~= '' then m = m + 32 end -- idempotency
  return m
end
for i = first, #KEYS do
  local key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')
  local h, f
  while key do
    h = redis.pcall('HGETALL', key)
    f = fieldsOf(h)
    local m = f and missing(f) or 0
    if m > 0 then
      redis.call('LMOVE', KEYS[1], KEYS[i], 'LEFT', 'RIGHT')
      return {0, key, 'gates', m, 0}
    end
    break
  end
  if key then
    local att, why, ends, untyped = check(key, h, f)
    if not att then
      local verdict, class = 'dead', 'unusable'
      deadLetter(key, KEYS[i], why, class)
      return {i - first + 1, key, verdict, '0', remaining(i), why}
    end
    local verdict = stopMarked(key, att) or (ARGV[4] == 'reject' and 'rejected' or nil) or 'run'
    local owner = tostring(att) .. ' ' .. ARGV[1]
    jobKnown[key] = {status = f['status'], attempt = tostring(att), timeline = f['timeline'] or '',
      flow_id = f['flow_id'], origin_peer = f['origin_peer'], concurrency_key = f['concurrency_key'] or '',
      lease = owner}
    nowMS = tonumber(ARGV[8])
    if verdict ~= 'run' then
      redis.call('HSET', key, 'attempt', tostring(att), 'lease', owner)
    else
      jobKnown[key].status = 'started'
      local tl = timelineNext(key, 'started', ARGV[1])
      if untyped then
        redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
          'timeline', tl, 'lease', owner, 'script_type', string.sub(KEYS[i], 7))
      else
        redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
          'timeline', tl, 'lease', owner)
      end
    end
    redis.call('ZADD', KEYS[2], ARGV[2], key)
    local out = {i - first + 1, key, verdict, tostring(att), remaining(i)}
    if verdict == 'run' then
      local why = quarantineScreen(key, f, att, KEYS[i])
      if why then out[3], out[6] = 'screened', why end
    end
    for j = 1, #h, 2 do
      if h[j] ~= 'timeline' and h[j] ~= 'lease' then out[#out + 1], out[#out + 2] = h[j], h[j + 1] end
    end
    return out
  end
end
return nil
