package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// CompleteJob ends the job's attempt with status finished or error, writing
// fields (result, error, …), pushing the status on reply:<key> for waiters,
// the key on jobs_done when the job belongs to a flow (the scheduler) and on
// remote_done when it came from another agent (the bridge) — atomically.
// An EndWatch on the job in this process gets the ended job, read by the
// same script.
func (s *Jobs) CompleteJob(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash) error {
	return s.completeJobWithLogs(ctx, ctxID, key, attempt, status, fields, nil, 0)
}

// completeJobWithLogs is CompleteJob that also appends lines to the job's
// log (at most max, then one LogCapMarker line), in the same script: only
// when the completion is taken, so a duplicate or a late result adds no
// lines, and before the waiters wake, so whoever waits for the end (job
// logs -f, too) finds them.
func (s *core) completeJobWithLogs(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int) error {
	return s.complete(ctx, ctxID, key, attempt, status, fields, lines, max, "")
}

// completeJob: see CompleteJob and CompleteJobWithLogs.
// KEYS[1] job key, KEYS[2] reply:<job key>, KEYS[3] jobs_done,
// KEYS[4] remote_done, KEYS[5] logs:<job key>.
// ARGV[1] expected attempt or "", ARGV[2] finished|error, ARGV[3] now
// (unix s), ARGV[4] reply TTL (s), ARGV[5] "read" to return the ended job
// (HGETALL, for an EndWatch) instead of 1, ARGV[6] log lines to append (a
// JSON list; "" = none), ARGV[7] the log's cap (lines), ARGV[8] its
// channel, ARGV[9] the cap's marker line, ARGV[10..] field, value pairs.
// Returns 1 or the ended job, or an error "notfound: …", "fenced: …",
// "transition: …" (then nothing is written).
var completeJob = newScript("completeJob", luaFence, luaAppendLines, luaAnnounceEnd, luaTimeline, `
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then return err end
if ARGV[6] ~= '' then
  appendLines(KEYS[5], tonumber(ARGV[7]), ARGV[8], ARGV[9], cjson.decode(ARGV[6]))
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, 10))
announceEnd(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[4])
timeline(KEYS[1], ARGV[2], '')
if ARGV[5] == 'read' then return redis.call('HGETALL', KEYS[1]) end
return 1
`)

// completeSentJob is CompleteJobWithLogs for a job this agent sent to
// another one, whose result has come: in the same step it settles msgKey,
// the job's message (status processed when its lifecycle allows, off the
// outbox and the awaiting list), so nothing is left to do after the
// waiters wake.
func (s *core) completeSentJob(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int, msgKey string) error {
	return s.complete(ctx, ctxID, key, attempt, status, fields, lines, max, msgKey)
}

// completeSentJob: see CompleteSentJob. It is completeJob that, once the
// fence lets the completion through, also settles the job's message.
// KEYS[1..5] as completeJob's, KEYS[6] the job's message key, KEYS[7]
// outbox, KEYS[8] awaiting_result. ARGV as completeJob's.
// Returns as completeJob.
var completeSentJob = newScript("completeSentJob", luaFence, luaAppendLines, luaAnnounceEnd, luaMessageMoves, luaTimeline, `
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then return err end
if ARGV[6] ~= '' then
  appendLines(KEYS[5], tonumber(ARGV[7]), ARGV[8], ARGV[9], cjson.decode(ARGV[6]))
end
local mst = redis.call('HGET', KEYS[6], 'status')
if mst and messageMoves(mst, 'processed') then
  redis.call('HSET', KEYS[6], 'status', 'processed', 'updated_at', ARGV[3])
end
redis.call('ZREM', KEYS[7], KEYS[6])
redis.call('ZREM', KEYS[8], KEYS[6])
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, 10))
announceEnd(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[2], ARGV[4])
timeline(KEYS[1], ARGV[2], '')
if ARGV[5] == 'read' then return redis.call('HGETALL', KEYS[1]) end
return 1
`)

// complete runs completeJob, or completeSentJob when it settles a message
// (settle, a message key), returning the ended job to an EndWatch when
// the job has one.
func (s *core) complete(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int, settle string) error {
	if !status.Terminal() {
		return fmt.Errorf("store.CompleteJob: %q is not a final status", status)
	}
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.CompleteJob: %w", err)
	}
	watched := s.ends.watched(ctxID, key)
	keys, args := endArgs(key, attempt, status)
	keys = append(keys, LogKey(key))
	args = append(args, completeOptions(ctxID, key, watched, lines, max)...)
	args = append(args, pairs(guarded(fields))...)
	script := completeJob
	if settle != "" {
		keys = append(keys, settle, OutboxKey, AwaitingKey)
		script = completeSentJob
	}
	res := script.Run(ctx, db, keys, args...)
	if err := res.Err(); err != nil || !watched {
		return scriptErr("store.CompleteJob", err)
	}
	h, err := endedJob(res)
	if err != nil {
		return fmt.Errorf("store.CompleteJob: %w", err)
	}
	s.ends.ended(ctxID, key, h)
	return nil
}

// completeOptions are ARGV[5..9] of completeJob: whether to return the
// ended job (read, for a watched job: the watch gets it from this round
// trip) and the log lines to append with the log's cap, channel and marker.
func completeOptions(ctxID uint64, key string, read bool, lines []string, max int) []any {
	r := ""
	if read {
		r = "read"
	}
	if len(lines) == 0 {
		return []any{r, "", 0, "", ""}
	}
	list, _ := json.Marshal(lines) // a list of strings always encodes
	return []any{r, string(list), max, LogChannel(ctxID, key), LogCapMarker}
}

// endArgs are the KEYS[1..4] and ARGV[1..4] that every script ending a job
// attempt starts with (completeJob, completeSentJob, completeLeased): the
// job key, its reply list, jobs_done and remote_done; the expected
// attempt, the final status, now and the reply list's TTL.
func endArgs(key string, attempt int64, status model.JobStatus) ([]string, []any) {
	return []string{key, ReplyKey(key), JobsDoneKey, RemoteDoneKey},
		[]any{attemptArg(attempt), string(status), now(), int64(ReplyTTL / time.Second)}
}
