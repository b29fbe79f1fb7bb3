package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job that came from another agent and waits on a queue that no runner
// of this agent serves, but that a runner record with local: true
// declares (an external worker, seed 001), is watched: its key is in
// external_jobs until the job ends. Such a worker ends the job the seed
// way, by HSET of status (and result) on the hash, which runs no script of
// ours; the bridge looks at the watched jobs (ExternalEnded) and sends the
// ended ones home (EndExternal). The set lives in Redis, so a job ended
// while the agent was down goes home when it is back.

// ExternalJobsKey is the ZSET of watched jobs (job key → unix ms watched).
const ExternalJobsKey = "external_jobs"

// ExtraSentHome marks a job whose end EndExternal handed to remote_done,
// so a second report of the same end (the HSET, then a result message)
// sends nothing twice.
const ExtraSentHome = "sent_home"

// WatchExternal adds received job jobKey of context ctxID to the watched
// jobs (idempotent: a resent job keeps its first entry).
func (s *Jobs) WatchExternal(ctx context.Context, ctxID uint64, jobKey string) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.WatchExternal: %w", err)
	}
	z := redis.Z{Score: float64(time.Now().UnixMilli()), Member: jobKey}
	return wrap("store.WatchExternal", db.ZAddNX(ctx, ExternalJobsKey, z).Err())
}

// ExternalEnded returns the watched jobs of context ctxID (at most max
// looked at) that have ended, or that are gone, for EndExternal.
func (s *Jobs) ExternalEnded(ctx context.Context, ctxID uint64, max int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ExternalEnded: %w", err)
	}
	keys, err := db.ZRange(ctx, ExternalJobsKey, 0, max-1).Result()
	if err != nil || len(keys) == 0 {
		return nil, wrap("store.ExternalEnded", err)
	}
	cmds := make([]*redis.SliceCmd, len(keys))
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HMGet(ctx, k, "status")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store.ExternalEnded: %w", err)
	}
	var out []string
	for i, c := range cmds {
		st, _ := c.Val()[0].(string)
		if c.Val()[0] == nil || model.JobStatus(st).Terminal() {
			out = append(out, keys[i])
		}
	}
	return out, nil
}

// ExternalOutcome is what EndExternal did.
type ExternalOutcome int

const (
	ExternalRunning ExternalOutcome = iota // not ended, and no end given: nothing done
	ExternalSent                           // handed to remote_done: the result goes home
	ExternalAlready                        // its end went home before: nothing done
)

// ErrNotRemote is why EndExternal refuses a job: it did not come from
// another agent, so it has no home to send a result to.
var ErrNotRemote = errors.New("the job did not come from another agent")

// EndExternal hands received job jobKey of context ctxID, ended by an
// external worker, to remote_done (the bridge sends its result home) and
// stops watching it, once. With status set (a result message from the
// worker), the job is ended first with status and fields when it has not
// ended yet; without, only a job that has ended is handed over.
func (s *Jobs) EndExternal(ctx context.Context, ctxID uint64, jobKey string, status model.JobStatus,
	fields model.Hash) (ExternalOutcome, error) {
	if status != "" && !status.Terminal() {
		return 0, fmt.Errorf("store.EndExternal: %q is not a final status", status)
	}
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.EndExternal: %w", err)
	}
	keys, args := endArgs(jobKey, 0, status)
	keys = append(keys, ExternalJobsKey)
	args = append(args, ExtraSentHome)
	args = append(args, pairs(guarded(fields))...)
	n, err := endExternal.Run(ctx, db, keys, args...).Int()
	if err != nil {
		if strings.HasPrefix(err.Error(), "notremote:") {
			return 0, fmt.Errorf("store.EndExternal %s: %w", jobKey, ErrNotRemote)
		}
		return 0, scriptErr("store.EndExternal", err)
	}
	return ExternalOutcome(n), nil
}

// endExternal: see EndExternal.
// KEYS[1..4] as completeJob's (job, reply, jobs_done, remote_done),
// KEYS[5] external_jobs. ARGV[1] "" (any attempt), ARGV[2] the final
// status or "" (only look), ARGV[3] now, ARGV[4] reply TTL, ARGV[5] the
// sent-home marker field, ARGV[6..] field, value pairs to write with the
// status. Returns 0 (running), 1 (sent), 2 (already sent), or an error
// "notfound: …", "notremote: …", "transition: …".
var endExternal = newScript("endExternal", luaMoves, luaAnnounceEnd, luaTimeline, `
local cur = redis.call('HMGET', KEYS[1], 'status', 'origin_peer', ARGV[5])
if not cur[1] and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[5], KEYS[1])
  return redis.error_reply('notfound: ' .. KEYS[1])
end
if not cur[2] or cur[2] == '' then
  return redis.error_reply('notremote: ' .. KEYS[1] .. ' did not come from another agent')
end
local st = cur[1] or ''
if st ~= 'finished' and st ~= 'error' then
  if ARGV[2] == '' then return 0 end
  if not moves(st, ARGV[2]) then
    return redis.error_reply('transition: ' .. KEYS[1] .. ' cannot go from "' .. st .. '" to "' .. ARGV[2] .. '"')
  end
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, 6))
  timeline(KEYS[1], ARGV[2], '')
  st = ARGV[2]
elseif cur[3] then
  redis.call('ZREM', KEYS[5], KEYS[1])
  return 2
end
redis.call('HSET', KEYS[1], ARGV[5], '1')
redis.call('ZREM', KEYS[5], KEYS[1])
announceEnd(KEYS[1], KEYS[2], KEYS[3], KEYS[4], st, ARGV[4])
return 1
`)

// externalOutcomes names the outcomes for logs and tests.
var externalOutcomes = []string{"running", "sent", "already"}

func (o ExternalOutcome) String() string {
	if i := int(o); i >= 0 && i < len(externalOutcomes) {
		return externalOutcomes[i]
	}
	return fmt.Sprintf("ExternalOutcome(%d)", int(o))
}

// DeclaresExternal reports whether runner records rs declare an external
// worker for script type typ: a record with local: true whose
// script_types include typ, or name none (a seed runner record carries no
// type: it takes whatever its context's queues hold).
func DeclaresExternal(rs []*model.Runner, typ string) bool {
	for _, r := range rs {
		if r.Local && (len(r.ScriptTypes) == 0 || slices.Contains(r.ScriptTypes, typ)) {
			return true
		}
	}
	return false
}

// ExternalWorker reports whether context ctxID's runner records declare
// an external worker for script type typ (DeclaresExternal).
func (s *Jobs) ExternalWorker(ctx context.Context, ctxID uint64, typ string) (bool, error) {
	rs, err := s.registry.ListRunners(ctx, ctxID)
	if err != nil {
		return false, fmt.Errorf("store.ExternalWorker: %w", err)
	}
	return DeclaresExternal(rs, typ), nil
}
