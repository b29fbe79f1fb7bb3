package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// StopMarkerTTL is how long a stop marker lives.
const StopMarkerTTL = 7 * 24 * time.Hour

// StopInfo is what MarkStop found on the job.
type StopInfo struct {
	Status     model.JobStatus
	Attempt    int64
	ScriptType string
}

// MarkStop records a stop request for the job's current attempt (a
// stop:<job key> marker the dequeuer and the lease heartbeat check) and
// announces it on StopChannel. ErrNotFound when the job does not exist.
func (s *Queues) MarkStop(ctx context.Context, ctxID uint64, jobKey string) (StopInfo, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return StopInfo{}, fmt.Errorf("store.MarkStop: %w", err)
	}
	ttl := int64(StopMarkerTTL / time.Second)
	res, err := markStop.Run(ctx, db, []string{jobKey, StopKey(jobKey)}, ttl, StopChannel, u(ctxID)).StringSlice()
	if err != nil {
		return StopInfo{}, scriptErr("store.MarkStop", err)
	}
	if len(res) != 3 {
		return StopInfo{}, fmt.Errorf("store.MarkStop: reply %v", res)
	}
	att, _ := strconv.ParseInt(res[1], 10, 64)
	return StopInfo{Status: model.JobStatus(res[0]), Attempt: att, ScriptType: res[2]}, nil
}

// markStop: see MarkStop. It records a stop request for a job and
// announces it as "<context id> <job key> <attempt>".
// KEYS[1] job key, KEYS[2] stop:<job key>. ARGV[1] marker TTL (s),
// ARGV[2] channel, ARGV[3] context id.
// Returns {status, attempt ("0" when unset), script_type} or an error
// "notfound: …". The marker holds the attempt ("1" when unset).
var markStop = newScript("markStop", `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('notfound: ' .. KEYS[1]) end
local h = redis.call('HMGET', KEYS[1], 'status', 'attempt', 'script_type')
local att = h[2] or ''
if att == '' then att = '0' end
local mark = att
if mark == '0' then mark = '1' end
redis.call('SET', KEYS[2], mark, 'EX', tonumber(ARGV[1]))
redis.call('PUBLISH', ARGV[2], ARGV[3] .. ' ' .. KEYS[1] .. ' ' .. mark)
return {h[1] or '', att, h[3] or ''}
`)

// ParseStopMessage reads a StopChannel payload: "<context id> <job key>
// <attempt>" (attempts up to that one are stopped).
func ParseStopMessage(payload string) (ctxID uint64, jobKey string, attempt int64, ok bool) {
	f := strings.Fields(payload)
	if len(f) != 3 {
		return 0, "", 0, false
	}
	n, err1 := strconv.ParseUint(f[0], 10, 64)
	a, err2 := strconv.ParseInt(f[2], 10, 64)
	return n, f[1], a, err1 == nil && err2 == nil
}

// StopRequested reports whether a stop marker covers the given attempt of
// the job.
func (s *Queues) StopRequested(ctx context.Context, ctxID uint64, jobKey string, attempt int64) (bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, fmt.Errorf("store.StopRequested: %w", err)
	}
	v, err := db.Get(ctx, StopKey(jobKey)).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store.StopRequested %s: %w", jobKey, err)
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return v == "0" || n >= attempt, nil
}
