package store

import "fmt"

// The schedule gate refuses a job whose run_at is still ahead (and whose
// timer has not fired for that run_at): it takes the job off processing
// and puts it in the timers, due at run_at, whose firing pushes it back
// on its queue (timers.go); the claim pops the next job.
//
// Reads the job's run_at and run_at_fired (from the fields the claim
// read); writes processing:<runner> and timers (announced on the timers
// channel when it is the earliest entry).
var scheduleGate = claimGate{
	name:     "schedule",
	flag:     gateSchedule,
	phase:    phaseHold,
	refuses:  "a job whose run_at is ahead: off processing, into timers",
	lua:      []string{luaTimers, luaScheduleHold},
	call:     "earlyHold(key, f, KEYS[i])",
	needs:    "runAtAhead(f, ARGV[8])",
	needsLua: luaRunAtAhead,
}

// luaRunAtAhead defines runAtAhead(f, nowms): the due time (unix ms, a
// string) when the fields f hold a run_at later than nowms whose timer
// has not fired, else nil (as notYet, luaTimers, reads them from a key).
var luaRunAtAhead = fmt.Sprintf(`
local function runAtAhead(f, nowms)
  local at = tonumber(f[%[1]q] or '')
  if not at or f[%[1]q] == f[%[2]q] then return nil end
  local ms = math.floor(at * 1000)
  if ms <= tonumber(nowms) then return nil end
  return string.format('%%d', ms)
end
`, RunAtField, runAtFiredField)

// luaScheduleHold defines earlyHold(key, f, list), the gate.
const luaScheduleHold = `
local function earlyHold(key, f, list)
  local ms = runAtAhead(f, ARGV[8])
  if not ms then return false end
  redis.call('LREM', KEYS[1], 1, key)
  addTimer(pushMember(list, key), ms, ARGV[9])
  return true
end
`
