package store

// The stopped gate refuses to run a job a stop marker covers (stop:<job>
// "0", or an attempt at least the one claimed): the job is leased all the
// same, its attempt written, and the claim answers stopped, so the
// runner ends it "stopped" at once. The rejected gate does the same for
// every job of a claim in reject mode (ARGV[4]): leased, untouched, the
// caller ends it with an error.
//
// stopped reads stop:<job>; rejected reads nothing.
var stoppedGate = claimGate{
	name:    "stopped",
	phase:   phaseVerdict,
	refuses: "a job a stop marker covers: leased, verdict stopped",
	lua:     []string{luaStopped},
	call:    "stopMarked(key, att)",
}

// rejectedGate: see stoppedGate.
var rejectedGate = claimGate{
	name:    "rejected",
	phase:   phaseVerdict,
	refuses: "every job of a claim in reject mode: leased, verdict rejected",
	call:    "(ARGV[4] == 'reject' and 'rejected' or nil)",
}

// luaStopped defines stopMarked(key, att): 'stopped' when a stop marker
// covers attempt att of the job at key, else nil.
const luaStopped = `
local function stopMarked(key, att)
  local stop = redis.call('GET', 'stop:' .. key)
  if stop and (stop == '0' or (tonumber(stop) or 0) >= att) then return 'stopped' end
  return nil
end
`
