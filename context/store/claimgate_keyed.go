package store

// The keyed gate refuses a job whose concurrency key is full: fewer than
// its max_in_flight jobs of that key may hold a place at once, and none
// may overtake one parked before it. A job that may run takes its place
// (keyed_running:<key>); one that may not is taken off processing and
// parked at the tail of keyed:<key>, to be promoted when a place is given
// back (queue_keyed_lua.go). A job whose place is already its own
// (promoted, or a retry) passes, and so does one the claim ends anyway
// (ended, or stopped).
//
// Reads the job's fields, stop:<job>, keyed_running:<key> and the hashes
// of its members (when the key looks full), keyed:<key>; writes
// keyed_running:<key>, keyed:<key>, keyed_waiting and
// processing:<runner>.
var keyedGate = claimGate{
	name:     "keyed",
	flag:     gateKeyed,
	phase:    phaseHold,
	refuses:  "a job whose concurrency key is full, or has jobs parked before it: parked in keyed:<key>",
	lua:      []string{luaAnnounceEnd, luaKeyedHold}, // luaAnnounceEnd brings luaKeyedCommon
	call:     "keyedHold(key, f, KEYS[i])",
	needs:    "(f['concurrency_key'] or '') ~= ''",
	touches:  []string{"keyed_running:<key> and its members' hashes, keyed:<key>"},
	needsLua: "",
}

// luaKeyedHold defines keyedHold(job, f, queue), the gate, for the job at
// key job with fields f, popped from queue.
const luaKeyedHold = `
local function keyedHold(job, f, queue)
  local k = f['concurrency_key']
  if not k or k == '' then return false end
  local run, park = 'keyed_running:' .. k, 'keyed:' .. k
  if redis.call('SISMEMBER', run, job) == 1 then return false end
  if f['status'] == 'finished' or f['status'] == 'error' or keyedStopped(job, f['attempt']) then return false end
  if redis.call('LLEN', park) == 0 and keyedRoom(k, keyedMax(f['max_in_flight'])) then
    redis.call('SADD', run, job)
    return false
  end
  redis.call('LREM', KEYS[1], 1, job)
  redis.call('RPUSH', park, cjson.encode({queue, job}))
  redis.call('SADD', keyedWaiting, k)
  return true
end
`
