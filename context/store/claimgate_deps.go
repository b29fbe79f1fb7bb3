package store

// The deps gate refuses a job whose dependends (jobs of its context that
// must finish first) or prerequisites (prereq:<name> keys that must
// exist) are not met: it takes the job off processing and parks it
// (status waiting_for_prerequisites, in deps_waiting, on the
// dep_waiters:<upstream> it waits for, in prereq_waiting to be
// re-checked); one whose DAG cannot be met (an upstream ended error, or
// it names itself) is ended error with the reason, announced like any
// end. It runs after the schedule gate and before the keyed one, so a
// job that waits holds no place of its key. A job the claim ends anyway
// (not startable, or stopped) passes (jobs_deps.go holds the DAG's Lua).
//
// Reads the job's fields, stop:<job>, the upstream jobs' hashes and
// prereq:<name>; writes processing:<runner>, the job's hash, deps_waiting,
// dep_waiters:<upstream>, prereq_waiting, and on an end the job's reply
// list, jobs_done, remote_done and the jobs waiting for it.
var depsGate = claimGate{
	name:     "deps",
	flag:     gateDeps,
	phase:    phaseHold,
	refuses:  "a job whose dependends or prerequisites are not met: parked, or ended error when they cannot be",
	lua:      []string{luaStartable, luaAnnounceEnd, luaDepsHold},
	call:     "depsHold(key, f, KEYS[i])",
	needs:    "hasDeps(f)",
	needsLua: luaHasDeps,
	touches: []string{"the upstream jobs' hashes, prereq:<name>, dep_waiters:<upstream>; " +
		"on an impossible DAG, " + endTouches},
}

// luaHasDeps defines hasDeps(f): whether the fields f name dependends or
// prerequisites.
const luaHasDeps = `
local function hasDeps(f)
  local d, p = f['dependends'], f['prerequisites']
  return (d ~= nil and d ~= '' and d ~= '[]') or (p ~= nil and p ~= '' and p ~= '[]')
end
`

// luaDepsHold defines depsHold(key, f, list), the gate, for the job at
// key with fields f, popped from list.
const luaDepsHold = `
local function depsHold(key, f, list)
  if not hasDeps(f) then return false end
  if startable(f['status'] or '') ~= true then return false end
  local stop = redis.call('GET', 'stop:' .. key)
  if stop and (stop == '0' or (tonumber(stop) or 0) >= (tonumber(f['attempt'] or '') or 1)) then return false end
  local state, a, b = depState(key)
  if state == 'ready' then return false end
  redis.call('LREM', KEYS[1], 1, key)
  if state == 'impossible' then
    unpark(key)
    redis.call('HSET', key, 'status', 'error', 'error', a, 'updated_at', ARGV[3])
    announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
    return true
  end
  park(key, list, a, b, ARGV[8])
  return true
end
`
