package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// ResultHome is the result message a sent job's result leaves at its
// origin (seed 000 steps 5–6, docs/design.md, "How Hyphae reads the specifications it follows"): message:<caller>:<ID> of type
// result, pushed on the origin context's msg_in, where the actor RPOPs it.
type ResultHome struct {
	ID   uint64   // the message's id (its caller is the job's)
	From string   // the peer the result came from
	Logs []string // the job's log tail
}

// CompleteSentJobHome is CompleteSentJob that, when the completion is
// taken (not fenced, not a duplicate), also writes home's result message
// — the ended job embedded as its one job — and pushes it on msg_in, in
// the same script: the job record and the message never disagree, and a
// duplicate result leaves no second message.
func (s *Jobs) CompleteSentJobHome(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int, msgKey string, home ResultHome) error {
	if !status.Terminal() {
		return fmt.Errorf("store.CompleteSentJobHome: %q is not a final status", status)
	}
	caller, _, err := ParseJobKey(key)
	if err != nil {
		return fmt.Errorf("store.CompleteSentJobHome: %w", err)
	}
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.CompleteSentJobHome: %w", err)
	}
	watched := s.ends.watched(ctxID, key)
	keys, args := endArgs(key, attempt, status)
	keys = append(keys, LogKey(key), msgKey, OutboxKey, AwaitingKey, MessageKey(caller, home.ID), MsgInKey)
	args = append(args, completeOptions(ctxID, key, watched, lines, max)...)
	args = append(args, resultHomeFields(ctxID, caller, key, home))
	args = append(args, pairs(guarded(fields))...)
	res := completeSentJobHome.Run(ctx, db, keys, args...)
	if err := res.Err(); err != nil || !watched {
		return scriptErr("store.CompleteSentJobHome", err)
	}
	h, err := endedJob(res)
	if err != nil {
		return fmt.Errorf("store.CompleteSentJobHome: %w", err)
	}
	s.ends.ended(ctxID, key, h)
	return nil
}

// resultHomeFields is the result message's hash but its job, as a JSON
// list of field, value pairs (the script adds the ended job).
func resultHomeFields(ctxID, caller uint64, jobKey string, home ResultHome) string {
	now := time.Now().Unix()
	m := &model.Message{ID: home.ID, CallerID: caller, ContextID: ctxID, MessageType: model.MsgTypeResult,
		Logs: home.Logs, Status: model.MsgProcessed, CreatedAt: now, UpdatedAt: now,
		Extra: model.Hash{model.ExtraFrom: home.From, model.ExtraResultOf: jobKey}}
	h := m.ToHash()
	delete(h, "job")
	flat := make([]string, 0, 2*len(h))
	for k, v := range h {
		flat = append(flat, k, v)
	}
	b, _ := json.Marshal(flat) // strings always encode
	return string(b)
}

// completeSentJobHome: see CompleteSentJobHome. It is completeSentJob
// that also writes the result message and pushes it on msg_in.
// KEYS[1..8] as completeSentJob's (KEYS[6] may be "": the job has no
// message to settle), KEYS[9] the result message key, KEYS[10] msg_in.
// ARGV[1..9] as completeJob's, ARGV[10] the result message's fields (a
// JSON list of field, value pairs, without job), ARGV[11..] the job's
// field, value pairs.
// Returns as completeJob.
var completeSentJobHome = newScript("completeSentJobHome", luaFence, luaAppendLines, luaAnnounceEnd,
	luaMessageMoves, luaTimeline, `
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then return err end
if ARGV[6] ~= '' then
  appendLines(KEYS[5], tonumber(ARGV[7]), ARGV[8], ARGV[9], cjson.decode(ARGV[6]))
end
if KEYS[6] ~= '' then
  local mst = redis.call('HGET', KEYS[6], 'status')
  if mst and messageMoves(mst, 'processed') then
    redis.call('HSET', KEYS[6], 'status', 'processed', 'updated_at', ARGV[3])
  end
  redis.call('ZREM', KEYS[7], KEYS[6])
  redis.call('ZREM', KEYS[8], KEYS[6])
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, 11))
timeline(KEYS[1], ARGV[2], 'result from its runner')
local h = redis.call('HGETALL', KEYS[1])
local job = {}
for i = 1, #h, 2 do job[h[i]] = h[i + 1] end
redis.call('HSET', KEYS[9], 'job', '[' .. cjson.encode(job) .. ']', unpack(cjson.decode(ARGV[10])))
redis.call('LPUSH', KEYS[10], KEYS[9])
announceEnd(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[4])
if ARGV[5] == 'read' then return h end
return 1
`)

// ResultHere settles result message key of context ctxID, taken from
// msg_out (on msg_out:processing), whose job is of this context and came
// from no other agent: home is here, so the message itself goes on
// msg_in, status processed, in one step.
func (s *Jobs) ResultHere(ctx context.Context, ctxID uint64, key string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.ResultHere: %w", err)
	}
	err = resultHere.Run(ctx, db, []string{key, MsgOutProcessingKey, MsgInKey}, now()).Err()
	return scriptErr("store.ResultHere", err)
}

// resultHere: see ResultHere.
// KEYS[1] the message key, KEYS[2] msg_out:processing, KEYS[3] msg_in.
// ARGV[1] now (unix s). Returns 1, or 0 when the message was not on the
// processing list (handled already).
var resultHere = newScript("resultHere", `
if redis.call('LREM', KEYS[2], 1, KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'processed', 'updated_at', ARGV[1])
redis.call('LPUSH', KEYS[3], KEYS[1])
return 1
`)
