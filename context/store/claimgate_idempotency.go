package store

import (
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// The idempotency gate enforces the raw Redis contract of idempotency
// keys (docs/idempotency.md): a job hash with an idempotency_key of its
// own whose idem:<key> record names another job (used within the
// retention window) is ended error with duplicate_of naming that job,
// without running: its lease released, its end announced, the claim's
// verdict invalid ("duplicate: …"; not a dead letter, nothing is wrong
// with it). A free key is recorded for this job. A job from another
// agent (its origin checked it), a flow's, or one whose key was claimed
// when it was submitted (idempotency_held) has no key of its own here.
//
// Reads the job's fields and idem:<key>; writes idem:<key>, and on a
// duplicate the job's hash, its lease, processing:<runner>, its reply
// list and timeline, and what its end releases.
var idempotencyGate = claimGate{
	name:     "idempotency",
	flag:     gateIdempotency,
	phase:    phaseScreen,
	refuses:  "a job whose idempotency key another job used within the retention window: ended error, duplicate_of",
	lua:      []string{luaLease, luaAnnounceEnd, luaTimeline, luaRefuse, luaIdemScreen},
	call:     "idemScreen(key, f, att)",
	needs:    "ARGV[4] ~= 'reject' and ARGV[10] ~= '0' and ownIdemKey(f) ~= ''",
	needsLua: luaOwnIdemKey,
	touches:  []string{"idem:<key>; on a duplicate, " + endTouches},
}

// luaOwnIdemKey defines ownIdemKey(f): the idempotency key of its own the
// job with fields f has, else the empty string.
var luaOwnIdemKey = fmt.Sprintf(`
local function ownIdemKey(f)
  local flow = f['flow_id']
  if (f[%q] or '') ~= '' or (flow and flow ~= '' and flow ~= '0') or f[%q] == 'true' then return '' end
  return f[%q] or ''
end
`, model.ExtraOriginPeer, model.ExtraIdempotencyHeld, model.ExtraIdempotencyKey)

// luaRefuse defines refuse(key, att, why, fields, event), how a screen
// ends the job it refuses, started and leased at attempt att: error with
// why and fields, its lease released, its end announced, and its
// timeline given event (when not nil) and the error.
const luaRefuse = `
local function refuse(key, att, why, fields, event)
  redis.call('HSET', key, 'status', 'error', 'error', why, 'updated_at', ARGV[3], unpack(fields))
  release(KEYS[1], KEYS[2], KEYS[3], key, tostring(att) .. ' ' .. ARGV[1])
  announceEnd(key, ARGV[7] .. key, KEYS[5], KEYS[6], 'error', ARGV[6])
  if event then timeline(key, event, why) end
  timeline(key, 'error', why)
end
`

// luaIdemScreen defines idemScreen(key, f, att), the gate: why it ended
// the job, or nil.
var luaIdemScreen = fmt.Sprintf(`
local function idemScreen(key, f, att)
  if ARGV[4] == 'reject' or ARGV[10] == '0' then return nil end
  local k = ownIdemKey(f)
  if k == '' then return nil end
  local rec = %q .. k
  local ref = redis.call('HGET', rec, 'ref')
  if not ref then
    redis.call('HSET', rec, 'ref', key, 'digest', '', 'at', ARGV[3])
    redis.call('PEXPIRE', rec, tonumber(ARGV[10]))
    return nil
  end
  if ref == key then return nil end
  local why = 'duplicate: idempotency key "' .. k .. '" was used by ' .. ref ..
    ' within the retention window; this job did not run'
  refuse(key, att, why, {'duplicate_of', ref})
  return why
end
`, IdempotencyKey(""))
