package store

import (
	"context"
	"fmt"
)

// luaRemovableJob defines removableJob(K, job, updated) (with terminal,
// luaTerminal) and dropJob(job, logs, reply, stop), shared by pruneJobs
// and pruneFlows, so a job goes by the same rule alone or with its flow.
// removableJob is true when the job at key job may go: it ended (finished
// or error), its updated_at is still updated (nil: any), it holds no
// lease, it was not sent away with its job message still out (outbox,
// awaiting_result), and, when it came from another agent, its result is
// home: the job is on neither remote_done list and no result message of
// it is in the outbox. A flow job still on jobs_done (the scheduler has
// not seen its end) stays too. K names the fixed keys (retentionKeys);
// the outbox's result messages are read once per script call. dropJob
// deletes the job's keys (unless dry is "dry") and returns the memory
// they hold.
var luaRemovableJob = luaTerminal + `
local pendingResults
local function resultPending(K, job)
  if not pendingResults then
    pendingResults = {}
    for _, m in ipairs(redis.call('ZRANGE', K.outbox, 0, -1)) do
      local of = redis.call('HGET', m, 'result_of')
      if of then pendingResults[of] = true end
    end
  end
  return pendingResults[job] == true
end
local function removableJob(K, job, updated)
  local f = redis.call('HMGET', job, 'status', 'updated_at', 'message_key', 'origin_peer', 'flow_id')
  if not terminal(f[1] or '') then return false end
  if updated and (f[2] or '') ~= updated then return false end
  if redis.call('ZSCORE', K.leases, job) then return false end
  local msg = f[3]
  if msg and msg ~= '' and (redis.call('ZSCORE', K.outbox, msg) or redis.call('ZSCORE', K.awaiting, msg)) then
    return false
  end
  if f[4] and f[4] ~= '' then
    if redis.call('LPOS', K.remoteDone, job) or redis.call('LPOS', K.remoteProcessing, job) then return false end
    if resultPending(K, job) then return false end
  end
  if f[5] and f[5] ~= '' and f[5] ~= '0' and redis.call('LPOS', K.jobsDone, job) then return false end
  return true
end
local function usage(key)
  return redis.call('MEMORY', 'USAGE', key) or 0
end
local function dropJob(dry, job, logs, reply, stop)
  -- its log's meta, its timeline and its index entry go too (logs_meta.go, jobs_timeline.go, jobs_index.go)
  local meta, tl = 'logmeta:' .. job, 'timeline:' .. job
  local b = usage(job) + usage(logs) + usage(meta) + usage(tl)
  if dry ~= 'dry' then
    redis.call('DEL', job, logs, reply, stop, meta, tl)
    redis.call('ZREM', 'job_index', job)
  end
  return b
end
local function retentionKeys()
  return {leases = KEYS[1], outbox = KEYS[2], awaiting = KEYS[3], remoteDone = KEYS[4],
    remoteProcessing = KEYS[5], jobsDone = KEYS[6]}
end
`

// retentionKeys are KEYS[1..6] of pruneJobs and pruneFlows, the lists and
// sets that tell whether a job is still in use (see luaRemovableJob).
func retentionKeys() []string {
	return []string{LeasesKey, OutboxKey, AwaitingKey, RemoteDoneKey, RemoteDoneProcessingKey, JobsDoneKey}
}

// jobKeys are the keys removed with job key: the job, its log, its reply
// list and its stop marker.
func jobKeys(job string) []string {
	return []string{job, LogKey(job), ReplyKey(job), StopKey(job)}
}

// PruneJobs removes the jobs of context ctxID that EndedJobs listed, each
// with its log, reply list and stop marker, in one script that checks each
// again first (see luaRemovableJob; a job whose updated_at changed since
// the listing, or that now belongs to a flow, stays). dry removes nothing
// and reports what would go. Batches of up to a few hundred jobs keep each
// call short.
func (s *Jobs) PruneJobs(ctx context.Context, ctxID uint64, jobs []Ended, dry bool) (Pruned, error) {
	if len(jobs) == 0 {
		return Pruned{}, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return Pruned{}, fmt.Errorf("store.PruneJobs: %w", err)
	}
	keys := retentionKeys()
	args := []any{dryArg(dry)}
	for _, j := range jobs {
		keys = append(append(keys, jobKeys(j.Key)...), FlowKey(j.Flow))
		args = append(args, j.Updated)
	}
	res, err := pruneJobs.Run(ctx, db, keys, args...).Slice()
	if err != nil {
		return Pruned{}, scriptErr("store.PruneJobs", err)
	}
	p := pruneReply(res)
	p.Jobs = p.Keys
	return p, nil
}

// pruneJobs: see PruneJobs.
// KEYS[1..6] retentionKeys; then per job 5 keys: the job, logs:<job>,
// reply:<job>, stop:<job> and flow:<its flow_id> (flow:0 for none).
// ARGV[1] "dry" or "", ARGV[1+i] the updated_at job i had when listed.
// Returns {bytes freed, removed job keys…}.
var pruneJobs = newScript("pruneJobs", luaRemovableJob, `
local K = retentionKeys()
local out = {0}
for i = 1, #ARGV - 1 do
  local b = 6 + (i - 1) * 5
  local job = KEYS[b + 1]
  if removableJob(K, job, ARGV[i + 1]) and redis.call('EXISTS', KEYS[b + 5]) == 0 then
    out[1] = out[1] + dropJob(ARGV[1], job, KEYS[b + 2], KEYS[b + 3], KEYS[b + 4])
    out[#out + 1] = job
  end
end
return out
`)
