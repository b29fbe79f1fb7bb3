package store

import (
	"fmt"
	"time"
)

// The job DAG on plain queued jobs (seed 000/001, docs/design.md, "How Hyphae reads the specifications it follows"). A job's
// dependends are ids of jobs of its context (job:<caller_id>:<id>, the
// caller of the job's own key, as a flow's jobs list names them) that
// must finish before it starts; its prerequisites are names, met when
// prereq:<name> exists in the context DB. A job whose DAG is not met
// does not run: the claim that pops it parks it (status
// waiting_for_prerequisites, off every list, in DepsWaitingKey), the way
// a job whose run_at is ahead goes to the timers, and takes the next one.
//
// How a parked job learns it may start, without a loop that polls:
//   - an upstream job's end releases it in the script that ends the
//     upstream (announceEnd, lua_lib.go): every end of a job attempt goes
//     through it, so no end is missed and no watcher runs. The dependent
//     goes back on its queue (the push wakes a runner like any push) or,
//     when the upstream ended error, ends error itself, "impossible: job N
//     ended error", and releases its own dependents the same way;
//   - a prerequisite key is written by anyone with a plain SET, which
//     runs no script of ours. The claim script re-checks the jobs waiting
//     for one whose re-check time has come (PrereqWaitingKey, at most
//     PrereqRecheck apart), so the check rides on the runners' existing
//     claim, which runs whenever a runner wakes: on a push, and at its
//     idle poll interval. Keyspace notifications were not chosen: they
//     would need string and hash events (SET, HSET, …) enabled server-wide
//     for every DB, published on every such write of every context, and
//     managed or embedded servers may refuse CONFIG; a lost event would
//     still need this re-check.
//
// Jobs of a flow are ordered by the flow's scheduler, not here: only
// their external prerequisites (on flows that keep upstream ids in
// dependends, model.ExtraUpstreamIn) park them.

// DepsWaitingKey is the hash (context DB) of parked jobs: job key → the
// queue list it goes back on when its dependends and prerequisites are
// met.
const DepsWaitingKey = "deps_waiting"

// DepWaitersKey is dep_waiters:<job key> (context DB), the set of parked
// jobs that wait for that job to end.
func DepWaitersKey(jobKey string) string { return "dep_waiters:" + jobKey }

// PrereqWaitingKey is the ZSET (context DB) of parked jobs that wait for a
// prerequisite: member = job key, score = when to check again (unix ms).
const PrereqWaitingKey = "prereq_waiting"

// PrereqKey is prereq:<name> (context DB): the prerequisite name is met
// while the key exists, whatever its type and value.
func PrereqKey(name string) string { return "prereq:" + name }

// PrereqRecheck is how long a job waiting for a prerequisite waits before
// a claim checks its prerequisites again.
const PrereqRecheck = time.Second

// prereqRecheckBatch is how many waiting jobs one claim re-checks at most,
// so a claim's cost stays bounded however many wait.
const prereqRecheckBatch = 16

// luaDeps defines the functions of the job DAG. It needs announceOne
// (lua_lib.go), the announcement of one job's end.
//
// depState(key) is whether the job at key may start: 'ready'; 'wait',
// unmet upstream job keys, unmet prerequisite names; or 'impossible',
// why.
//
// park(key, list, waits, names, nowms) records a job that waits: status
// waiting_for_prerequisites, the list it goes back on, the upstream jobs
// it waits for, and a re-check time when it waits for a prerequisite.
//
// settle(key, nowms, reply, jobsDone, remoteDone, ttl) looks again at a
// parked job: gone, ended or moved on → forgotten ('gone'); ready → back
// on its list ('queued'); impossible → ended error and announced
// ('ended'); else parked again ('waiting').
//
// releaseWaiters(job, reply, jobsDone, remoteDone, ttl), after job ended,
// settles the jobs that waited for it, and theirs in turn when they end.
// reply is the ended job's reply list: the others' are named alike.
//
// recheckPrereqs(nowms, reply prefix, jobsDone, remoteDone, ttl) settles
// the jobs whose prerequisite re-check time has come (a bounded batch).
var luaDeps = fmt.Sprintf(`
local depsWaiting, prereqWaiting, waitersPrefix, prereqPrefix = %q, %q, %q, %q
local recheckMs, recheckBatch = %d, %d
local function depList(v)
  local out = {}
  if not v or v == '' or v == '[]' then return out end
  local ok, t = pcall(cjson.decode, v)
  if not ok or type(t) ~= 'table' then return out end
  for _, x in ipairs(t) do
    if type(x) == 'number' then out[#out + 1] = string.format('%%.0f', x)
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
    'updated_at', string.format('%%d', math.floor(tonumber(nowms) / 1000)))
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
    redis.call('HSET', key, 'status', 'error', 'error', a, 'updated_at', string.format('%%d', math.floor(tonumber(nowms) / 1000)))
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
        nowms = string.format('%%d', (tonumber(redis.pcall('HGET', job, 'updated_at')) or 0) * 1000)
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
`, DepsWaitingKey, PrereqWaitingKey, DepWaitersKey(""), PrereqKey(""),
	PrereqRecheck.Milliseconds(), prereqRecheckBatch)
