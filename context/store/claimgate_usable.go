package store

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// The usable gate refuses a queue entry that is no job to run, and
// dead-letters it in the same step, never leased: a key that is missing,
// not a hash or an ended job is left as it is (verdict dead, class
// unusable). The invalid gate ends a job hash whose status or attempt is
// no valid value with error and the reason, announced like any end,
// before usable dead-letters it (verdict invalid, class invalid). Either
// way the entry leaves processing and the class is counted in
// dead_letter:counts.
//
// usable reads the job's hash (the fields the claim read, and TYPE when
// it is no hash) and writes dead_letter, dead_letter:counts and
// processing:<runner>; invalid writes the job's hash, reply list and
// timeline, and what its end releases.
var usableGate = claimGate{
	name:     "usable",
	phase:    phaseUsable,
	refuses:  "an entry that is no job to run (missing, not a hash, ended; or invalid): dead-lettered",
	lua:      []string{luaUsable},
	needsLua: luaStatusList + luaFieldsFault,
}

// invalidGate: see usableGate.
var invalidGate = claimGate{
	name:    "invalid",
	flag:    gateInvalid,
	phase:   phaseUsable,
	refuses: "a job hash whose status or attempt is no valid value: ended error, then dead-lettered",
	lua:     []string{luaAnnounceEnd, luaTimeline, luaEndInvalid},
	call:    "endInvalid(key, why)",
	needs:   "next(f) ~= nil and fieldsFault(f) ~= nil",
	touches: []string{"when it ends the job: " + endTouches},
}

// luaStatusList defines statusList, the job statuses a job hash may hold
// (model.JobMoves), for the reason given when it holds another.
var luaStatusList = func() string {
	var sts []string
	for st := range model.JobMoves() {
		if st != "" {
			sts = append(sts, string(st))
		}
	}
	sort.Strings(sts)
	return fmt.Sprintf("local statusList = %q\n", strings.Join(sts, ", "))
}()

// luaFieldsFault defines fieldsFault(f): why the fields f of a job hash
// make no valid job (a status that is none of the lifecycle's; a
// startable job whose attempt is no whole number), else nil.
const luaFieldsFault = `
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
`

// luaUsable defines check(key, h, f): the attempt to run, or nil, why
// the job is unusable and whether the invalid gate ends it (a job hash
// whose own fields are wrong; a key that is missing, of another type or
// an ended job is not touched), then whether the hash has no
// script_type; h is HGETALL's reply (an error reply when the key is no
// hash), f its fields. And deadLetter(key, queue, why, class), which
// takes the entry off processing into dead_letter and counts its class.
const luaUsable = `
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
`

// luaEndInvalid defines endInvalid(key, why): the invalid gate's end of
// the job at key, error with why, announced.
const luaEndInvalid = `
local function endInvalid(key, why)
  redis.call('HSET', key, 'status', 'error', 'error', why, 'updated_at', ARGV[3])
  announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
  timeline(key, 'error', why)
end
`
