package store

import (
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// The quarantine gate refuses a job that keeps failing (docs/idempotency.md,
// quarantine.go): an attempt that follows quarantine.after_failures
// (ARGV[11]) failed ones in a row, counted since the job's
// quarantine_base, is ended error, quarantined (quarantine_base moved to
// this attempt, so RetryDeadLetter starts a fresh count), its lease
// released, its end announced, and it goes to the dead letters (class
// failures); the claim's verdict is invalid with the reason.
//
// Reads the job's fields; writes, when it quarantines, the job's hash,
// its lease, processing:<runner>, dead_letter, dead_letter:counts, its
// reply list and timeline, and what its end releases.
var quarantineGate = claimGate{
	name:     "quarantine",
	flag:     gateQuarantine,
	phase:    phaseScreen,
	refuses:  "an attempt after quarantine.after_failures failed ones in a row: ended error, dead-lettered",
	lua:      []string{luaLease, luaAnnounceEnd, luaTimeline, luaRefuse, luaQuarantineScreen},
	call:     "quarantineScreen(key, f, att, KEYS[i])",
	needs:    "quarantineDue(f)",
	needsLua: luaQuarantineDue,
	touches:  []string{"when it quarantines: " + endTouches},
}

// luaQuarantineDue defines quarantineDue(f): whether the job with fields
// f is to run an attempt that follows at least ARGV[11] failed ones in a
// row; quarantine_base is read as a decimal integer (0 when it is none).
var luaQuarantineDue = fmt.Sprintf(`
local function quarantineDue(f)
  local n = tonumber(ARGV[11]) or 0
  if ARGV[4] == 'reject' or n <= 0 then return false end
  local araw, att = f['attempt'] or '', 1
  if araw ~= '' then att = tonumber(araw) end
  if att == nil or att ~= math.floor(att) then return false end
  local b, base = f[%[1]q] or '', 0
  if string.match(b, '^[+-]?%%d+$') then base = tonumber(b) end
  return math.max(att, 1) - 1 - base >= n
end
`, model.ExtraQuarantineBase)

// luaQuarantineScreen defines quarantineScreen(key, f, att, queue), the
// gate: why it ended the job popped from queue, or nil.
var luaQuarantineScreen = fmt.Sprintf(`
local function quarantineScreen(key, f, att, queue)
  if not quarantineDue(f) then return nil end
  local n = tonumber(ARGV[11])
  local failed = att - 1 - (tonumber(f[%[1]q] or '0') or 0)
  if failed < n then return nil end
  local why = 'quarantined: ' .. failed .. ' attempts failed in a row (quarantine.after_failures ' .. n ..
    '); last error: ' .. (f['error'] or '')
  refuse(key, att, why, {'quarantined', why, %[1]q, tostring(att)}, 'quarantined')
  redis.call('LPUSH', KEYS[4], cjson.encode({key = key, queue = queue, reason = why,
    runner = ARGV[1], at = tonumber(ARGV[3]), class = 'failures'}))
  redis.call('LTRIM', KEYS[4], 0, tonumber(ARGV[5]) - 1)
  redis.call('HINCRBY', KEYS[7], 'failures', 1)
  return why
end
`, model.ExtraQuarantineBase)
