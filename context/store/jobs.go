package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// ReplyTTL is how long a reply:<job key> list lives after the job ends.
const ReplyTTL = 24 * time.Hour

// SaveJob writes j into its context DB (allocating its id when 0).
func (s *Jobs) SaveJob(ctx context.Context, j *model.RunnerJob) error {
	db, err := s.db(j.ContextID)
	if err != nil {
		return fmt.Errorf("store.SaveJob: %w", err)
	}
	if j.ID == 0 {
		if j.ID, err = NextID(ctx, db, "job"); err != nil {
			return fmt.Errorf("store.SaveJob: %w", err)
		}
	}
	stamp(&j.CreatedAt, &j.UpdatedAt)
	err = saveJob.Run(ctx, db, []string{JobKey(j.CallerID, j.ID)}, pairs(j.ToHash())...).Err()
	return scriptErr("store.SaveJob", err)
}

// saveJob: see SaveJob. KEYS[1] job key, ARGV field, value pairs. A new
// job goes into the context's job index (jobs_index.go).
var saveJob = newScript("saveJob", luaTimeline, luaJobIndex, `
local fresh = redis.call('EXISTS', KEYS[1]) == 0
redis.call('HSET', KEYS[1], unpack(ARGV))
if fresh then indexJob(KEYS[1]) end
return 1
`)

// EnqueueJob saves j with status dispatched and pushes it on
// queue:<script_type>, atomically.
func (s *Jobs) EnqueueJob(ctx context.Context, j *model.RunnerJob) error {
	db, err := s.db(j.ContextID)
	if err != nil {
		return fmt.Errorf("store.EnqueueJob: %w", err)
	}
	if j.ID == 0 {
		if j.ID, err = NextID(ctx, db, "job"); err != nil {
			return fmt.Errorf("store.EnqueueJob: %w", err)
		}
	}
	if j.Attempt == 0 {
		j.Attempt = 1
	}
	j.Status = model.JobDispatched
	stamp(&j.CreatedAt, &j.UpdatedAt)
	key := JobKey(j.CallerID, j.ID)
	err = enqueueJob.Run(ctx, db, []string{key, QueueKey(j.ScriptType)}, pairs(j.ToHash())...).Err()
	return scriptErr("store.EnqueueJob", err)
}

// enqueueJob: see EnqueueJob.
// KEYS[1] job key, KEYS[2] queue:<type>. ARGV field, value pairs.
var enqueueJob = newScript("enqueueJob", luaTimeline, luaJobIndex, `
redis.call('HSET', KEYS[1], unpack(ARGV))
indexJob(KEYS[1])
return redis.call('LPUSH', KEYS[2], KEYS[1])
`)

// LoadJob reads job:<caller>:<id> from context ctxID.
func (s *Jobs) LoadJob(ctx context.Context, ctxID, caller, id uint64) (*model.RunnerJob, error) {
	return s.LoadJobKey(ctx, ctxID, JobKey(caller, id))
}

// LoadJobKey reads a job by its key.
func (s *Jobs) LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJob: %w", err)
	}
	h, err := load(ctx, db, key)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJob: %w", err)
	}
	stampJobHash(ctx, db, key, h) // a seed client's job without created_at (jobs_first_seen.go)
	j, err := decodeJob(ctxID)(key, h)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJob: %w", err)
	}
	return j, nil
}

// decodeJob decodes a job hash of context ctxID, taking the ids that a
// hand-written hash leaves out from its key and DB.
func decodeJob(ctxID uint64) func(string, model.Hash) (*model.RunnerJob, error) {
	return func(key string, h model.Hash) (*model.RunnerJob, error) {
		j, err := model.JobFromHash(key, h)
		if err != nil {
			return nil, err
		}
		if j.ContextID == 0 {
			j.ContextID = ctxID
		}
		if caller, id, perr := ParseJobKey(key); perr == nil {
			if j.CallerID == 0 {
				j.CallerID = caller
			}
			if j.ID == 0 {
				j.ID = id
			}
		}
		return j, nil
	}
}

// ListJobs returns the jobs of a context.
func (s *Jobs) ListJobs(ctx context.Context, ctxID uint64) ([]*model.RunnerJob, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListJobs: %w", err)
	}
	keys, err := scan(ctx, db, "job:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListJobs: %w", err)
	}
	js, err := loadAll(ctx, db, keys, decodeJob(ctxID))
	if err == nil {
		stampJobs(ctx, db, js) // a seed client's jobs without created_at (jobs_first_seen.go)
	}
	return js, err
}

// deleteJob removes a job hash.
func (s *core) deleteJob(ctx context.Context, ctxID, caller, id uint64) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.DeleteJob: %w", err)
	}
	if err := del(ctx, db, JobKey(caller, id)); err != nil {
		return fmt.Errorf("store.DeleteJob: %w", err)
	}
	return nil
}

// SetJobStatus moves the job at key to status, fenced on attempt (0 = any),
// writing the extra fields too. Invalid moves give model.ErrBadTransition,
// stale attempts ErrFenced.
func (s *Jobs) SetJobStatus(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.SetJobStatus: %w", err)
	}
	args := append([]any{attemptArg(attempt), string(status), now()}, pairs(guarded(fields))...)
	return scriptErr("store.SetJobStatus", setJobStatus.Run(ctx, db, []string{key}, args...).Err())
}

// setJobStatus: see SetJobStatus.
// KEYS[1] job key. ARGV[1] expected attempt or "", ARGV[2] new status,
// ARGV[3] now (unix s), ARGV[4..] field, value pairs.
// Returns 1, or an error "notfound: …", "fenced: …", "transition: …".
var setJobStatus = newScript("setJobStatus", luaFence, luaTimeline, `
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then return err end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], unpack(ARGV, 4))
timeline(KEYS[1], ARGV[2], '')
return 1
`)

// RequeueJob puts the job back on queue:<type> as a new attempt (fenced on
// attempt, 0 = any) and returns the new attempt number.
func (s *Jobs) RequeueJob(ctx context.Context, ctxID uint64, key, scriptType string, attempt int64,
	fields model.Hash) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.RequeueJob: %w", err)
	}
	args := append([]any{attemptArg(attempt), string(model.JobDispatched), now()}, pairs(guarded(fields))...)
	n, err := requeueJob.Run(ctx, db, []string{key, QueueKey(scriptType), ReplyKey(key)}, args...).Int64()
	return n, scriptErr("store.RequeueJob", err)
}

// requeueJob: see RequeueJob. The attempt that ended gets its end on the
// timeline ("error", detail: the error field given) before the new one's
// "retry", unless EndAttempt wrote it already, so every attempt of the
// timeline has an end.
// KEYS[1] job key, KEYS[2] queue:<type>, KEYS[3] reply:<job key> (cleared so
// waiters do not see the old attempt's end). ARGV[1] expected attempt or "",
// ARGV[2] "dispatched", ARGV[3] now, ARGV[4..] field, value pairs.
// Returns the new attempt, or an error as setJobStatus's.
var requeueJob = newScript("requeueJob", luaFence, luaTimeline, luaAttemptEnded, `
local err = fence(KEYS[1], ARGV[1], ARGV[2])
if err then return err end
local next = tonumber(redis.call('HGET', KEYS[1], 'attempt') or '0') or 0
if not attemptEnded(KEYS[1], next) then
  local why = ''
  for i = 4, #ARGV - 1, 2 do
    if ARGV[i] == 'error' then why = ARGV[i + 1] end
  end
  if why == '' then why = 'attempt ' .. next .. ' ended; retrying' end
  timeline(KEYS[1], 'error', why)
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updated_at', ARGV[3], 'attempt', tostring(next + 1), unpack(ARGV, 4))
jobKnown[KEYS[1]] = nil -- its attempt moved
timeline(KEYS[1], 'retry', '')
redis.call('DEL', KEYS[3])
redis.call('LPUSH', KEYS[2], KEYS[1])
return next + 1
`)

// guarded drops fields that only the lifecycle scripts may set, so a
// caller cannot skip validation or fencing through them.
func guarded(fields model.Hash) model.Hash {
	if _, a := fields["status"]; !a {
		if _, b := fields["attempt"]; !b {
			_, c := fields[TimelineField]
			if _, d := fields[LeaseField]; !c && !d {
				return fields
			}
		}
	}
	out := make(model.Hash, len(fields))
	for k, v := range fields {
		if k != "status" && k != "attempt" && k != TimelineField && k != LeaseField {
			out[k] = v
		}
	}
	return out
}

func attemptArg(a int64) string {
	if a <= 0 {
		return ""
	}
	return strconv.FormatInt(a, 10)
}
