package store

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// luaMoves is the job lifecycle as a Lua function, generated from
// model.JobMoves so Go and Lua cannot disagree: moves(from, to) is true
// when the move is allowed, false when it is not, nil when from is no known
// status.
var luaMoves = luaJobFunc("moves", "to", func(st model.JobStatus) string {
	next := model.JobMoves()[st]
	if len(next) == 0 {
		return "false"
	}
	conds := make([]string, len(next))
	for i, n := range next {
		conds[i] = fmt.Sprintf("to == %q", n)
	}
	return strings.Join(conds, " or ")
})

// luaJobFunc renders `local function name(st, arg) if st == … then return
// value(st) elseif … end end` over every job status, in a stable order (a
// status it does not know gives nil). A chain of comparisons, not a table:
// a table literal is built again on every script call (the lifecycle's
// nested tables cost about 2 µs of Redis CPU per call on a small VM).
func luaJobFunc(name, arg string, value func(model.JobStatus) string) string {
	moves := model.JobMoves()
	keys := make([]string, 0, len(moves))
	for k := range moves {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "local function %s(st, %s)\n", name, arg)
	for i, k := range keys {
		kw := "elseif"
		if i == 0 {
			kw = "if"
		}
		fmt.Fprintf(&b, "  %s st == %q then return %s\n", kw, k, value(model.JobStatus(k)))
	}
	b.WriteString("  end\n  return nil\nend\n")
	return b.String()
}

// luaCheck fences on attempt and validates the move; it expects the job key
// in KEYS[1], the expected attempt in ARGV[1] ("" = any) and the new status
// in ARGV[2]. It returns an error reply "fenced: …" or "transition: …".
const luaCheck = `
local cur = redis.call('HMGET', KEYS[1], 'status', 'attempt')
if not cur[1] and not cur[2] and redis.call('EXISTS', KEYS[1]) == 0 then
  return redis.error_reply('notfound: ' .. KEYS[1])
end
local st = cur[1] or ''
local att = cur[2] or ''
if att == '' then att = '0' end
if ARGV[1] ~= '' and ARGV[1] ~= att then
  return redis.error_reply('fenced: ' .. KEYS[1] .. ' is at attempt ' .. att .. ', not ' .. ARGV[1])
end
if not moves(st, ARGV[2]) then
  return redis.error_reply('transition: ' .. KEYS[1] .. ' cannot go from "' .. st .. '" to "' .. ARGV[2] .. '"')
end
`

// saveAndPush writes a hash and pushes its key on a list, atomically.
// KEYS[1] hash key, KEYS[2] list key. ARGV field, value, field, value…
var saveAndPush = redis.NewScript(`
redis.call('HSET', KEYS[1], unpack(ARGV))
return redis.call('LPUSH', KEYS[2], KEYS[1])
`)

// saveActor writes an actor and its pubkey index, refusing a pubkey that
// belongs to another actor, and drops the index entry of the actor's
// previous pubkey when it changed.
// KEYS[1] actor:<id>, KEYS[2] actor_by_pubkey:<pubkey> (or "" key when none),
// KEYS[3] actor_by_pubkey:<previous pubkey> (or "" key when unchanged).
// ARGV[1] id, ARGV[2..] field, value pairs.
var saveActor = redis.NewScript(`
if KEYS[2] ~= '' then
  local owner = redis.call('GET', KEYS[2])
  if owner and owner ~= ARGV[1] then
    return redis.error_reply('exists: pubkey already belongs to actor ' .. owner)
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if KEYS[2] ~= '' then redis.call('SET', KEYS[2], ARGV[1]) end
if KEYS[3] ~= '' and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3]) end
return 1
`)

// deleteActor removes an actor and its index entry if it points at it.
// KEYS[1] actor:<id>, KEYS[2] actor_by_pubkey:<pubkey>. ARGV[1] id.
var deleteActor = redis.NewScript(`
local n = redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return n
`)

// setJobStatus moves a job to a new status, fenced on attempt.
// KEYS[1] job key. ARGV[1] expected attempt or "", ARGV[2] new status,
// ARGV[3] now (unix s), ARGV[4..] extra field, value pairs.
var setJobStatus = redis.NewScript(luaMoves + luaCheck + `
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3])
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
return 1
`)

// completeJob ends a job attempt: fence, validate, write status and fields,
// wake waiters, tell the flow scheduler (jobs with a flow_id) and the bridge
// (jobs that came from another agent: origin_peer set).
// KEYS[1] job key, KEYS[2] reply:<job key>, KEYS[3] jobs_done,
// KEYS[4] remote_done, and optionally (luaSettleSent) a message key,
// outbox, awaiting_result.
// ARGV[1] expected attempt or "", ARGV[2] finished|error, ARGV[3] now,
// ARGV[4] reply TTL seconds, ARGV[5..] field, value pairs.
var completeJob = redis.NewScript(luaMoves + luaCheck + luaSettleSent + luaComplete(5))

// luaSettleSent settles the message of a sent job whose result is being
// written (Store.CompleteSentJob), once luaCheck has taken the completion:
// when the completion script has 3 keys more than it needs (7 without log
// lines, 8 with), the last three are the message key, the outbox and
// awaiting_result. The message moves to processed when its lifecycle
// allows and leaves both sets.
var luaSettleSent = `
if #KEYS >= 7 then
  local mk = KEYS[#KEYS - 2]
  local mst = redis.call('HGET', mk, 'status')
  if mst and (` + luaMsgMayBecome(model.MsgProcessed, "mst") + `) then
    redis.call('HSET', mk, 'status', 'processed', 'updated_at', ARGV[3])
  end
  redis.call('ZREM', KEYS[#KEYS - 1], mk)
  redis.call('ZREM', KEYS[#KEYS], mk)
end
`

// luaMsgMayBecome is a Lua condition, true when the message status held in
// variable v may move to next (model.MessageStatus.CanMoveTo).
func luaMsgMayBecome(next model.MessageStatus, v string) string {
	var conds []string
	for _, from := range msgStatuses {
		if from.CanMoveTo(next) {
			conds = append(conds, fmt.Sprintf("%s == %q", v, from))
		}
	}
	if len(conds) == 0 {
		return "false"
	}
	return strings.Join(conds, " or ")
}

// completeWithLogs is completeJob that, once the completion is taken
// (luaCheck), first appends log lines to the job's log (luaAppendLines).
// KEYS[1..4] as completeJob's, KEYS[5] logs:<job key>.
// ARGV[1..4] as completeJob's, ARGV[5] the lines (a JSON list), ARGV[6]
// the log's cap, ARGV[7] its channel, ARGV[8] the cap's marker line,
// ARGV[9..] field, value pairs.
var completeWithLogs = redis.NewScript(luaMoves + luaCheck + luaLogsFirst + luaSettleSent + luaComplete(9))

// luaLogsFirst appends a completion's log lines (KEYS[5], ARGV[5..8] as
// completeWithLogs takes them) once luaCheck has taken the completion.
const luaLogsFirst = luaAppendLines + `
appendLines(KEYS[5], tonumber(ARGV[6]), ARGV[7], ARGV[8], cjson.decode(ARGV[5]))
`

// completeJobRead and completeWithLogsRead are completeJob and
// completeWithLogs that return the ended job (HGETALL) instead of 1, for a
// job someone watches (EndWatch).
var (
	completeJobRead      = redis.NewScript(luaMoves + luaCheck + luaSettleSent + luaCompleteThen(5, luaReturnJob))
	completeWithLogsRead = redis.NewScript(luaMoves + luaCheck + luaLogsFirst + luaSettleSent + luaCompleteThen(9, luaReturnJob))
)

// luaReturnJob ends a completion script with the ended job's fields.
const luaReturnJob = `return redis.call('HGETALL', KEYS[1])`

// luaComplete is the body of a completion, after luaCheck: status, fields
// (ARGV[first..] field, value pairs) in one HSET, the reply push and the
// jobs_done / remote_done pushes. KEYS[1..4] and ARGV[1..4] as for
// completeJob. Every script that ends a job attempt uses it, so their side
// effects cannot drift apart.
func luaComplete(first int) string { return luaCompleteThen(first, "return 1") }

// luaCompleteThen is luaComplete ending with ret instead of "return 1".
func luaCompleteThen(first int, ret string) string {
	return fmt.Sprintf(`
if #ARGV >= %[1]d then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, %[1]d))
else
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3])
end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[4]))
local f = redis.call('HMGET', KEYS[1], 'flow_id', 'origin_peer')
if f[1] and f[1] ~= '' and f[1] ~= '0' then redis.call('LPUSH', KEYS[3], KEYS[1]) end
if f[2] and f[2] ~= '' then redis.call('LPUSH', KEYS[4], KEYS[1]) end
%[2]s
`, first, ret)
}

// requeueJob puts a job back as a new attempt.
// KEYS[1] job key, KEYS[2] queue:<type>, KEYS[3] reply:<job key> (cleared so
// waiters do not see the old attempt's end). ARGV[1] expected attempt or "",
// ARGV[2] "dispatched", ARGV[3] now, ARGV[4..] field, value pairs.
var requeueJob = redis.NewScript(luaMoves + luaCheck + `
local next = tonumber(redis.call('HGET', KEYS[1], 'attempt') or '0') or 0
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], 'attempt', tostring(next + 1))
if #ARGV > 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 4)) end
redis.call('DEL', KEYS[3])
redis.call('LPUSH', KEYS[2], KEYS[1])
return next + 1
`)

// pairs flattens a hash into HSET arguments.
func pairs(h model.Hash) []any {
	out := make([]any, 0, 2*len(h))
	for k, v := range h {
		out = append(out, k, v)
	}
	return out
}

// msgStatuses are the message statuses, "" (none yet) first, for the
// lifecycle's Lua renderings.
var msgStatuses = []model.MessageStatus{"", model.MsgDispatched, model.MsgAcknowledged, model.MsgError, model.MsgProcessed}

// luaMsgMoves is the message lifecycle as a Lua table, generated from
// model.MessageStatus.CanMoveTo.
var luaMsgMoves = func() string {
	all := msgStatuses
	var b strings.Builder
	b.WriteString("local moves = {")
	for _, from := range all {
		fmt.Fprintf(&b, "[%q]={", from)
		for _, to := range all[1:] {
			if from.CanMoveTo(to) {
				fmt.Fprintf(&b, "[%q]=true,", to)
			}
		}
		b.WriteString("},")
	}
	b.WriteString("}\n")
	return b.String()
}()

// setMessageStatus moves a message to a new status if the lifecycle allows.
// KEYS[1] message key. ARGV[1] new status, ARGV[2] now, ARGV[3..] field,
// value pairs.
var setMessageStatus = redis.NewScript(luaMsgMoves + `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('notfound: ' .. KEYS[1]) end
local st = redis.call('HGET', KEYS[1], 'status') or ''
local allowed = moves[st]
if allowed == nil or not allowed[ARGV[1]] then
  return redis.error_reply('transition: ' .. KEYS[1] .. ' cannot go from "' .. st .. '" to "' .. ARGV[1] .. '"')
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
return 1
`)

// orLoad returns cmd, the reply of script s queued in a pipeline with
// EvalSha (which cannot fall back to EVAL there), unless the server had
// not loaded s yet: then that call did not run, and s runs now, with Run,
// which loads it. The pipeline's other commands ran either way.
func orLoad(ctx context.Context, db *redis.Client, s *redis.Script, cmd *redis.Cmd, keys []string, args ...any) *redis.Cmd {
	if isNoScript(cmd.Err()) {
		return s.Run(ctx, db, keys, args...)
	}
	return cmd
}

func isNoScript(err error) bool { return err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") }
