package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// ReplyTTL is how long a reply:<job key> list lives after the job ends.
const ReplyTTL = 24 * time.Hour

// SaveJob writes j into its context DB (allocating its id when 0).
func (s *Store) SaveJob(ctx context.Context, j *model.RunnerJob) error {
	db, err := s.DB(j.ContextID)
	if err != nil {
		return fmt.Errorf("store.SaveJob: %w", err)
	}
	if j.ID == 0 {
		if j.ID, err = NextID(ctx, db, "job"); err != nil {
			return fmt.Errorf("store.SaveJob: %w", err)
		}
	}
	stamp(&j.CreatedAt, &j.UpdatedAt)
	if err := hset(ctx, db, JobKey(j.CallerID, j.ID), j.ToHash()); err != nil {
		return fmt.Errorf("store.SaveJob: %w", err)
	}
	return nil
}

// EnqueueJob saves j with status dispatched and pushes it on
// queue:<script_type>, atomically.
func (s *Store) EnqueueJob(ctx context.Context, j *model.RunnerJob) error {
	db, err := s.DB(j.ContextID)
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
	err = saveAndPush.Run(ctx, db, []string{key, QueueKey(j.ScriptType)}, pairs(j.ToHash())...).Err()
	return scriptErr("store.EnqueueJob", err)
}

// LoadJob reads job:<caller>:<id> from context ctxID.
func (s *Store) LoadJob(ctx context.Context, ctxID, caller, id uint64) (*model.RunnerJob, error) {
	return s.LoadJobKey(ctx, ctxID, JobKey(caller, id))
}

// LoadJobKey reads a job by its key.
func (s *Store) LoadJobKey(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJob: %w", err)
	}
	h, err := load(ctx, db, key)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJob: %w", err)
	}
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
func (s *Store) ListJobs(ctx context.Context, ctxID uint64) ([]*model.RunnerJob, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ListJobs: %w", err)
	}
	keys, err := scan(ctx, db, "job:*")
	if err != nil {
		return nil, fmt.Errorf("store.ListJobs: %w", err)
	}
	return loadAll(ctx, db, keys, decodeJob(ctxID))
}

// DeleteJob removes a job hash.
func (s *Store) DeleteJob(ctx context.Context, ctxID, caller, id uint64) error {
	db, err := s.DB(ctxID)
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
func (s *Store) SetJobStatus(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash) error {
	db, err := s.DB(ctxID)
	if err != nil {
		return fmt.Errorf("store.SetJobStatus: %w", err)
	}
	args := append([]any{attemptArg(attempt), string(status), now()}, pairs(guarded(fields))...)
	return scriptErr("store.SetJobStatus", setJobStatus.Run(ctx, db, []string{key}, args...).Err())
}

// CompleteJob ends the job's attempt with status finished or error, writing
// fields (result, error, …), pushing the status on reply:<key> for waiters,
// the key on jobs_done when the job belongs to a flow (the scheduler) and on
// remote_done when it came from another agent (the bridge) — atomically.
// An EndWatch on the job in this process gets the ended job, read by the
// same script.
func (s *Store) CompleteJob(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash) error {
	return s.CompleteJobWithLogs(ctx, ctxID, key, attempt, status, fields, nil, 0)
}

// CompleteJobWithLogs is CompleteJob that also appends lines to the job's
// log (at most max, then one LogCapMarker line), in the same script: only
// when the completion is taken, so a duplicate or a late result adds no
// lines, and before the waiters wake, so whoever waits for the end (job
// logs -f, too) finds them.
func (s *Store) CompleteJobWithLogs(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int) error {
	return s.complete(ctx, ctxID, key, attempt, status, fields, lines, max, "")
}

// CompleteSentJob is CompleteJobWithLogs for a job this agent sent to
// another one, whose result has come: in the same step it settles msgKey,
// the job's message (status processed when its lifecycle allows, off the
// outbox and the awaiting list), so nothing is left to do after the
// waiters wake.
func (s *Store) CompleteSentJob(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int, msgKey string) error {
	return s.complete(ctx, ctxID, key, attempt, status, fields, lines, max, msgKey)
}

// complete runs the completion script that fits: with log lines or not,
// settling a message (settle, a message key) or not, and returning the
// ended job to an EndWatch when the job has one.
func (s *Store) complete(ctx context.Context, ctxID uint64, key string, attempt int64,
	status model.JobStatus, fields model.Hash, lines []string, max int, settle string) error {
	if !status.Terminal() {
		return fmt.Errorf("store.CompleteJob: %q is not a final status", status)
	}
	db, err := s.DB(ctxID)
	if err != nil {
		return fmt.Errorf("store.CompleteJob: %w", err)
	}
	keys, args := completeArgs(key, attempt, status, fields)
	script, read := completeJob, completeJobRead
	if len(lines) > 0 {
		list, _ := json.Marshal(lines) // a list of strings always encodes
		keys = append(keys, LogKey(key))
		args = slices.Insert(args, 4, any(string(list)), any(max), any(LogChannel(ctxID, key)), any(LogCapMarker))
		script, read = completeWithLogs, completeWithLogsRead
	}
	if settle != "" {
		keys = append(keys, settle, OutboxKey, AwaitingKey)
	}
	watched := s.ends.watched(ctxID, key)
	if watched {
		script = read // the watch gets the ended job from this round trip
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

// completeArgs builds the KEYS and ARGV of the completeJob script; every
// caller of the script goes through it.
func completeArgs(key string, attempt int64, status model.JobStatus, fields model.Hash) ([]string, []any) {
	ttl := int64(ReplyTTL / time.Second)
	args := append([]any{attemptArg(attempt), string(status), now(), ttl}, pairs(guarded(fields))...)
	return []string{key, ReplyKey(key), JobsDoneKey, RemoteDoneKey}, args
}

// RequeueJob puts the job back on queue:<type> as a new attempt (fenced on
// attempt, 0 = any) and returns the new attempt number.
func (s *Store) RequeueJob(ctx context.Context, ctxID uint64, key, scriptType string, attempt int64,
	fields model.Hash) (int64, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.RequeueJob: %w", err)
	}
	args := append([]any{attemptArg(attempt), string(model.JobDispatched), now()}, pairs(guarded(fields))...)
	n, err := requeueJob.Run(ctx, db, []string{key, QueueKey(scriptType), ReplyKey(key)}, args...).Int64()
	return n, scriptErr("store.RequeueJob", err)
}

// guarded drops fields that only the lifecycle scripts may set, so a
// caller cannot skip validation or fencing through them.
func guarded(fields model.Hash) model.Hash {
	if _, a := fields["status"]; !a {
		if _, b := fields["attempt"]; !b {
			return fields
		}
	}
	out := make(model.Hash, len(fields))
	for k, v := range fields {
		if k != "status" && k != "attempt" {
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
