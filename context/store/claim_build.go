package store

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
)

// The claim scripts are built here from claimGates (claim_gates.go), one
// per set of optional gates, each when a claim first needs it (most
// agents run two or three of the 128), then loaded once and run by
// EVALSHA.

// claimCache holds the claim variants built so far.
var claimCache struct {
	mu sync.Mutex
	s  [gateAll + 1]*redis.Script // guarded by mu
}

// claimScript returns variant v of the claim, built on first use.
func claimScript(v gateFlag) *redis.Script {
	claimCache.mu.Lock()
	defer claimCache.mu.Unlock()
	if claimCache.s[v] == nil {
		claimCache.s[v] = builtScript(claimSource(v))
	}
	return claimCache.s[v]
}

// claimScriptName is "claim" and the optional gates of variant v, or
// "claim_plain" for none.
func claimScriptName(v gateFlag) string {
	if v == 0 {
		return "claim_plain"
	}
	var b strings.Builder
	b.WriteString("claim")
	for _, g := range claimGates {
		if g.flag != 0 && v&g.flag != 0 {
			b.WriteString("_" + g.name)
		}
	}
	return b.String()
}

// variantGates returns the gates variant v holds, in order.
func variantGates(v gateFlag) []claimGate {
	var out []claimGate
	for _, g := range claimGates {
		if g.flag == 0 || v&g.flag != 0 {
			out = append(out, g)
		}
	}
	return out
}

// claimSource assembles variant v: its header (what Redis runs, told),
// the Lua its gates need, each fragment once, the KEYS bound to the
// locals the fragments name keys by, then the claim itself.
func claimSource(v gateFlag) string {
	gates := variantGates(v)
	var b strings.Builder
	claimHeader(&b, v, gates)
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			b.WriteString(s)
		}
	}
	add(luaJobKnown)
	add(luaStartable)
	for _, g := range claimGates {
		add(g.needsLua) // pure Lua: the plain variant asks every gate whether a job needs it
	}
	add(luaLease)
	add(luaTimeline)
	for _, g := range gates {
		for _, l := range g.lua {
			add(l)
		}
	}
	lib := b.String()
	b.WriteString("-- the fixed keys the fragments above name, from KEYS\n")
	for i, k := range claimKeys {
		if k.local != "" && regexp.MustCompile(`(?m)^local [\w, ]*\b`+k.local+`\b[\w, ]* =`).MatchString(lib) {
			fmt.Fprintf(&b, "%s = KEYS[%d]\n", k.local, i+1)
		}
	}
	claimBody(&b, v, gates)
	return b.String()
}

// claimHeader writes the Lua comment that says what variant v is.
func claimHeader(b *strings.Builder, v gateFlag, gates []claimGate) {
	fmt.Fprintf(b, "-- %s: one job claim (context/store/claim_build.go builds it from claimGates,\n", claimScriptName(v))
	b.WriteString("-- claim_gates.go; go test ./context/store -run ClaimGolden -update rewrites this file).\n")
	b.WriteString("-- Takes the oldest job of the first non-empty queue into processing:<runner>\n")
	b.WriteString("-- with a lease, through these gates, in order:\n")
	for _, g := range gates {
		fmt.Fprintf(b, "--   %s: %s\n", g.name, g.refuses)
	}
	var lacks []string
	for _, g := range claimGates {
		if g.flag != 0 && v&g.flag == 0 {
			lacks = append(lacks, g.name)
		}
	}
	if len(lacks) > 0 {
		fmt.Fprintf(b, "-- Lacks %s: a job that needs one goes back to the head of its\n", strings.Join(lacks, ", "))
		b.WriteString("-- queue untouched, and the reply names the gates it needs.\n")
	}
	for i, k := range claimKeys {
		fmt.Fprintf(b, "-- KEYS[%d] %s\n", i+1, k.doc)
	}
	fmt.Fprintf(b, "-- KEYS[%d..] queue:<type>, in the order to try\n", len(claimKeys)+1)
	for i, a := range claimArgs {
		fmt.Fprintf(b, "-- ARGV[%d] %s\n", i+1, a)
	}
	b.WriteString("-- Keys named only once the job is popped, so in no KEYS:\n")
	for _, d := range claimDerived {
		fmt.Fprintf(b, "--   %s\n", d)
	}
	for _, g := range gates {
		for _, t := range g.touches {
			fmt.Fprintf(b, "--   %s: %s\n", g.name, t)
		}
	}
	b.WriteString(`-- Returns nil when every queue is empty; {0, job key, 'gates', flags, 0}
-- when the job needs gates this variant lacks ('' for the key when the
-- claim needs them before it pops); else {queue index (1 =
-- the first queue), job key, verdict, attempt, jobs left (0 when the
-- queues are empty after this one), then field, value, … as popped} with
-- verdict run, stopped or rejected; dead or invalid (dead-lettered, no
-- lease) with the reason instead of the fields; screened (started,
-- leased, then ended by a screen) with the reason before the fields.
`)
}

// claimBody writes the claim: settle, then per queue pop, hold, check,
// verdict, start and lease, screen.
func claimBody(b *strings.Builder, v gateFlag, gates []claimGate) {
	for _, g := range claimGates {
		if g.phase == phaseSettle && v&g.flag == 0 {
			fmt.Fprintf(b, "if %s then return {0, '', 'gates', %d, 0} end -- %s\n", g.needs, g.flag, g.name)
		}
	}
	var holds, verdicts, screens []string
	ends := false
	for _, g := range gates {
		switch g.phase {
		case phaseSettle:
			b.WriteString(g.call + "\n")
		case phaseUsable:
			ends = ends || g.call != ""
		case phaseHold:
			holds = append(holds, g.call)
		case phaseVerdict:
			verdicts = append(verdicts, g.call)
		case phaseScreen:
			screens = append(screens, g.call)
		}
	}
	fmt.Fprintf(b, "local first = %d\n", len(claimKeys)+1)
	b.WriteString(luaClaimHelpers)
	lacking := claimMissing(b, v)
	b.WriteString(`for i = first, #KEYS do
  local key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')
  local h, f
  while key do
    h = redis.pcall('HGETALL', key)
    f = fieldsOf(h)
`)
	if lacking {
		b.WriteString(`    local m = f and missing(f) or 0
    if m > 0 then
      redis.call('LMOVE', KEYS[1], KEYS[i], 'LEFT', 'RIGHT')
      return {0, key, 'gates', m, 0}
    end
`)
	}
	if len(holds) > 0 {
		fmt.Fprintf(b, "    if not (f and (%s)) then break end\n", strings.Join(holds, " or\n        "))
		b.WriteString("    key = redis.call('LMOVE', KEYS[i], KEYS[1], 'RIGHT', 'LEFT')\n")
	} else {
		b.WriteString("    break\n")
	}
	b.WriteString(`  end
  if key then
    local att, why, ends, untyped = check(key, h, f)
    if not att then
      local verdict, class = 'dead', 'unusable'
`)
	if ends {
		b.WriteString(`      if ends then
        verdict, class = 'invalid', 'invalid'
        endInvalid(key, why)
      end
`)
	}
	fmt.Fprintf(b, `      deadLetter(key, KEYS[i], why, class)
      return {i - first + 1, key, verdict, '0', remaining(i), why}
    end
    local verdict = %s or 'run'
`, strings.Join(verdicts, " or "))
	b.WriteString(luaClaimStart)
	if len(screens) > 0 {
		fmt.Fprintf(b, `    if verdict == 'run' then
      local why = %s
      if why then out[3], out[6] = 'screened', why end
    end
`, strings.Join(screens, " or "))
	}
	b.WriteString(`    for j = 1, #h, 2 do
      if h[j] ~= 'timeline' and h[j] ~= 'lease' then out[#out + 1], out[#out + 2] = h[j], h[j + 1] end
    end
    return out
  end
end
return nil
`)
}

// claimMissing writes missing(f), the flags of the gates variant v lacks
// that the job with fields f needs, and reports whether it wrote it (the
// variant with every gate lacks none).
func claimMissing(b *strings.Builder, v gateFlag) bool {
	if v == gateAll {
		return false
	}
	b.WriteString("local function missing(f)\n  local m = 0\n")
	for _, g := range claimGates {
		if g.flag != 0 && v&g.flag == 0 && g.phase != phaseSettle {
			fmt.Fprintf(b, "  if %s then m = m + %d end -- %s\n", g.needs, g.flag, g.name)
		}
	}
	b.WriteString("  return m\nend\n")
	return true
}

// luaClaimHelpers defines remaining(i), whether jobs are left: the length
// of queue i when it has some (the common case: one LLEN), else the sum
// over the other queues; and fieldsOf(h), HGETALL's reply h as a table
// (nil when the key is no hash).
const luaClaimHelpers = `local function remaining(i)
  local n = redis.call('LLEN', KEYS[i])
  if n > 0 then return n end
  for j = first, #KEYS do
    if j ~= i then n = n + redis.call('LLEN', KEYS[j]) end
  end
  return n
end
local function fieldsOf(h)
  if h.err then return nil end
  local f = {}
  for j = 1, #h, 2 do f[h[j]] = h[j + 1] end
  return f
end
`

// luaClaimStart writes the claim's verdict on the job (with run: started,
// and script_type from the queue when it has none; always its attempt),
// its timeline entry and its lease's owner (in the same HSET) and its
// lease's expiry, and begins the reply. The job's attempt and timeline are known from the pop (jobKnown)
// and the time from ARGV, so the entry reads nothing more.
const luaClaimStart = `    local owner = tostring(att) .. ' ' .. ARGV[1]
    jobKnown[key] = {status = f['status'], attempt = tostring(att), timeline = f['timeline'] or '',
      flow_id = f['flow_id'], origin_peer = f['origin_peer'], concurrency_key = f['concurrency_key'] or '',
      lease = owner}
    nowMS = tonumber(ARGV[8])
    if verdict ~= 'run' then
      redis.call('HSET', key, 'attempt', tostring(att), 'lease', owner)
    else
      jobKnown[key].status = 'started'
      local tl = timelineNext(key, 'started', ARGV[1])
      if untyped then
        redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
          'timeline', tl, 'lease', owner, 'script_type', string.sub(KEYS[i], 7))
      else
        redis.call('HSET', key, 'attempt', tostring(att), 'status', 'started', 'updated_at', ARGV[3],
          'timeline', tl, 'lease', owner)
      end
    end
    redis.call('ZADD', KEYS[2], ARGV[2], key)
    local out = {i - first + 1, key, verdict, tostring(att), remaining(i)}
`
