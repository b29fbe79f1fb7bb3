package store

import "github.com/redis/go-redis/v9"

// Lua scripts of the flow scheduler. They live here, beside scripts.go,
// because that file belongs to the foundation; same rules: one script per
// operation, KEYS and ARGV documented.

// luaHsetJSON defines hsetjson(key, json): HSET every field of a JSON object
// of strings, in chunks (unpack has a stack limit).
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

// createFlow stores a new flow with its jobs and node states, refusing ids
// that exist already (nothing is written then).
// KEYS[1] flow:<id>, KEYS[2] flow_nodes:<id>, KEYS[3..] job keys.
// ARGV[1] flow hash, ARGV[2] node states, ARGV[3..] job hashes in KEYS
// order — each a JSON object of strings.
var createFlow = redis.NewScript(luaHsetJSON + `
for i = 1, #KEYS do
  if i ~= 2 and redis.call('EXISTS', KEYS[i]) == 1 then
    return redis.error_reply('exists: ' .. KEYS[i])
  end
end
hsetjson(KEYS[1], ARGV[1])
hsetjson(KEYS[2], ARGV[2])
for i = 3, #KEYS do hsetjson(KEYS[i], ARGV[i]) end
return 1
`)

// flowStep applies one step of a flow's state machine, all or nothing.
// KEYS[1] flow:<id>, KEYS[2] flow_nodes:<id>, KEYS[3] flow_results:<id>,
// KEYS[4] flows_active.
// ARGV[1] the step as JSON: {flow_status: [allowed flow statuses],
// node: name, node_states: [allowed states of that node] (both guards
// optional), moves: [{n: name, f: [from states], t: to state}], results:
// {field: value}, flow: {field: value}, active: "add"|"remove", id: flow id}.
// A failed guard writes nothing and returns {0}; else moves apply to nodes
// whose state is in f and it returns {1, moved names...}.
var flowStep = redis.NewScript(luaHsetJSON + `
local spec = cjson.decode(ARGV[1])
local function has(list, v)
  if type(list) ~= 'table' then return false end
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end
if type(spec.flow_status) == 'table' and #spec.flow_status > 0 then
  if not has(spec.flow_status, redis.call('HGET', KEYS[1], 'status') or '') then return {0} end
end
if type(spec.node) == 'string' and spec.node ~= '' then
  if not has(spec.node_states, redis.call('HGET', KEYS[2], spec.node) or '') then return {0} end
end
local out = {1}
if type(spec.moves) == 'table' then
  for _, m in ipairs(spec.moves) do
    if has(m.f, redis.call('HGET', KEYS[2], m.n) or '') then
      redis.call('HSET', KEYS[2], m.n, m.t)
      out[#out + 1] = m.n
    end
  end
end
if type(spec.results) == 'table' then hsetobj(KEYS[3], spec.results) end
if type(spec.flow) == 'table' then hsetobj(KEYS[1], spec.flow) end
if spec.active == 'add' then redis.call('SADD', KEYS[4], spec.id) end
if spec.active == 'remove' then redis.call('SREM', KEYS[4], spec.id) end
return out
`)

// dispatchFlowJob hands one flow job to a runner: guard the node state and
// the job's attempt, write the job, push it on its queue (local) or write
// the message and push it on msg_out (remote), clear old replies and mark
// the node dispatched — atomically, so a job is dispatched exactly once.
// KEYS[1] flow_nodes:<flow>, KEYS[2] job key, KEYS[3] list to push on
// (queue:<type> or msg_out), KEYS[4] message key (the job key when local),
// KEYS[5] reply:<job key>.
// ARGV[1] node name, ARGV[2] allowed node states (space separated),
// ARGV[3] expected job attempt ("" = any), ARGV[4] N, ARGV[5..4+2N] job
// field/value pairs, then message field/value pairs (remote only).
// Returns 1 when dispatched, 0 when a guard failed or the job has ended.
var dispatchFlowJob = redis.NewScript(`
local st = redis.call('HGET', KEYS[1], ARGV[1]) or ''
local ok = false
for w in string.gmatch(ARGV[2], '%S+') do if w == st then ok = true end end
if not ok then return 0 end
local cur = redis.call('HMGET', KEYS[2], 'status', 'attempt')
if cur[1] == 'finished' or cur[1] == 'error' then return 0 end
if ARGV[3] ~= '' and (cur[2] or '0') ~= ARGV[3] then return 0 end
local n = tonumber(ARGV[4])
redis.call('HSET', KEYS[2], unpack(ARGV, 5, 4 + 2 * n))
if #ARGV > 4 + 2 * n then
  redis.call('HSET', KEYS[4], unpack(ARGV, 5 + 2 * n))
  redis.call('LPUSH', KEYS[3], KEYS[4])
else
  redis.call('LPUSH', KEYS[3], KEYS[2])
end
redis.call('DEL', KEYS[5])
redis.call('HSET', KEYS[1], ARGV[1], 'dispatched')
return 1
`)

// restoreJobsDone moves every entry of a scheduler's processing list back
// to the consuming (right) end of jobs_done, oldest consumed first.
// KEYS[1] jobs_done:processing:<owner>, KEYS[2] jobs_done. Returns the count.
var restoreJobsDone = redis.NewScript(`
local n = 0
while redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT') do n = n + 1 end
return n
`)
