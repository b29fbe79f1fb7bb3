package store

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// waitStep is how long WaitJob blocks on reply:<key> before it re-checks
// the job (in case the push was consumed by another waiter).
const waitStep = 2 * time.Second

// WaitJob blocks until the job at key ends (or ctx is done: nil and ctx's
// error) and returns it. It works whether the job ended before or after the
// call: jobIfEnded answers at once for one that has. A job not ended yet
// costs one round trip per wait step: BRPOPLPUSH on reply:<key> pipelined
// with jobIfEnded, which Redis runs as soon as the BRPOPLPUSH returns, so
// the wake-up brings the whole job with it; while the job runs, the steps
// read only its status.
func (s *Jobs) WaitJob(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error) {
	return s.waitJob(ctx, ctxID, key, true)
}

// WaitNewJob is WaitJob for a job the caller has just created and set
// going: it skips the first look and goes straight to the reply list, which
// the job's end fills whenever it comes (the first look only spares a job
// that ended before the call, and whose reply list expired or was taken by
// a plain client's BLPOP, a wait step). One round trip less per job.
func (s *Jobs) WaitNewJob(ctx context.Context, ctxID uint64, key string) (*model.RunnerJob, error) {
	return s.waitJob(ctx, ctxID, key, false)
}

func (s *core) waitJob(ctx context.Context, ctxID uint64, key string, look bool) (*model.RunnerJob, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.WaitJob: %w", err)
	}
	keys := []string{key}
	var h model.Hash
	if look {
		h, err = endedJob(jobIfEnded.Run(ctx, db, keys))
	}
	for err == nil && h == nil {
		h, err = waitOnce(ctx, db, keys)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store.WaitJob: %w", err)
	}
	return decodeJob(ctxID)(key, h)
}

// waitOnce blocks on reply:<key> for up to waitStep, then runs jobIfEnded
// in the same round trip.
func waitOnce(ctx context.Context, db *redis.Client, keys []string) (model.Hash, error) {
	var ended *redis.Cmd
	_, _ = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Do(ctx, "BRPOPLPUSH", ReplyKey(keys[0]), ReplyKey(keys[0]), strconv.FormatInt(int64(waitStep/time.Second), 10))
		ended = jobIfEnded.EvalSha(ctx, p, keys)
		return nil
	})
	return endedJob(orLoad(ctx, db, jobIfEnded, ended, keys))
}

// endedJob decodes jobIfEnded's reply: the job's fields when it has ended,
// else nil (ErrNotFound when there is no such job).
func endedJob(cmd *redis.Cmd) (model.Hash, error) {
	res, err := cmd.StringSlice()
	if err != nil {
		return nil, scriptErr("wait", err)
	}
	if len(res) < 2 {
		return nil, nil
	}
	h := make(model.Hash, len(res)/2)
	for i := 0; i+1 < len(res); i += 2 {
		h[res[i]] = res[i+1]
	}
	return h, nil
}

// jobIfEnded reads a job for a waiter: the whole hash once it has ended,
// only its status before.
// KEYS[1] job key. Returns {field, value, …} (HGETALL) when the status is
// finished or error, else {status} ("" when unset), or an error
// "notfound: …".
var jobIfEnded = newScript("jobIfEnded", luaTerminal, `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then
  if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('notfound: ' .. KEYS[1]) end
  return {''}
end
if terminal(st) then return redis.call('HGETALL', KEYS[1]) end
return {st}
`)
