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
// unusable); a job hash whose status or attempt is no valid value is
// ended error with the reason, announced like any end (verdict invalid,
// class invalid). Either way the entry leaves processing and the class
// is counted in dead_letter:counts.
//
// Reads the job's hash (the fields the claim read, and TYPE when it is
// no hash); writes dead_letter, dead_letter:counts, processing:<runner>,
// and for an invalid job its hash, reply list and timeline.
var usableGate = claimGate{
	name:    "usable",
	phase:   phaseUsable,
	refuses: "an entry that is no job to run (missing, not a hash, ended, bad status or attempt): dead-lettered",
	lua:     []string{luaStartable, luaStatusList, luaAnnounceEnd, luaTimeline, luaUsable},
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

// luaUsable defines check(key, h, f): the attempt to run, or nil, why
// the job is unusable and whether to end it (a job hash whose own fields
// are wrong; a key that is missing, of another type or an ended job is
// not touched), then whether the hash has no script_type; h is HGETALL's
// reply (an error reply when the key is no hash), f its fields. And
// unusable(key, queue, why, ends), which dead-letters the entry (ending
// the job first when ends) and returns the verdict, dead or invalid.
const luaUsable = `
local function check(key, h, f)
  if h.err then
    return nil, 'invalid job: ' .. key .. ' is a ' .. redis.call('TYPE', key).ok .. ', not a job hash'
  end
  if #h == 0 then return nil, 'job hash ' .. key .. ' does not exist' end
  local st, araw = f['status'] or '', f['attempt'] or ''
  local ok = startable(st)
  if ok == nil then return nil, 'invalid job: status "' .. st .. '" is not one of ' .. statusList, true end
  if not ok then return nil, 'job is already ' .. st .. '; re-dispatch it as a new attempt' end
  local att = 1
  if araw ~= '' then att = tonumber(araw) end
  if att == nil or att ~= math.floor(att) then
    return nil, 'invalid job: attempt "' .. araw .. '" is not a whole number', true
  end
  return math.max(att, 1), nil, false, (f['script_type'] or '') == ''
end
local function unusable(key, queue, why, ends)
  local verdict, class = 'dead', 'unusable'
  if ends then
    verdict, class = 'invalid', 'invalid'
    redis.call('HSET', key, 'status', 'error', 'error', why, 'updated_at', ARGV[3])
    announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
    timeline(key, 'error', why)
  end
  redis.call('LREM', KEYS[1], 1, key)
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = queue, reason = why,
    runner = ARGV[1], at = tonumber(ARGV[3]), class = class}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
  redis.call('HINCRBY', KEYS[7], class, 1)
  return verdict
end
`
