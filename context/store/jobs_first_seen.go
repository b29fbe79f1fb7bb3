package store

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job hash written straight into Redis by a seed client may have no
// created_at (or "0"): it would show as created in 1970 and sort last.
// The agent stamps it when it first reads the job (job.load, job.list, the
// dashboard's briefs, a flow's jobs): created_at becomes that moment, once
// (a later read finds it set), and the job's index entry, if any, moves
// to it.

// stampCreated: KEYS[1] job key, ARGV[1] now (unix s). Returns the job's
// created_at: the one it has, else ARGV[1], written; 0 when it is gone.
var stampCreated = newScript("stampCreated", `
if redis.call('TYPE', KEYS[1]).ok ~= 'hash' then return 0 end
local c = redis.call('HGET', KEYS[1], 'created_at')
if c and c ~= '' and c ~= '0' and tonumber(c) then return tonumber(c) end
redis.call('HSET', KEYS[1], 'created_at', ARGV[1])
redis.call('ZADD', 'job_index', 'XX', tonumber(ARGV[1]), KEYS[1])
return tonumber(ARGV[1])
`)

// firstSeen stamps created_at on job key when it has none and returns it
// (0 when Redis fails: the job then shows without it, as before).
func firstSeen(ctx context.Context, db *redis.Client, key string) int64 {
	n, err := stampCreated.Run(ctx, db, []string{key}, now()).Int64()
	if err != nil {
		return 0
	}
	return n
}

// stampJobs gives the jobs without created_at theirs (firstSeen).
func stampJobs(ctx context.Context, db *redis.Client, jobs []*model.RunnerJob) {
	for _, j := range jobs {
		if j != nil && j.CreatedAt == 0 {
			j.CreatedAt = firstSeen(ctx, db, JobKey(j.CallerID, j.ID))
		}
	}
}

// stampJobHash gives job hash h of key, without created_at, its (firstSeen).
func stampJobHash(ctx context.Context, db *redis.Client, key string, h model.Hash) {
	if c, _ := strconv.ParseInt(h["created_at"], 10, 64); c == 0 {
		if n := firstSeen(ctx, db, key); n != 0 {
			h["created_at"] = strconv.FormatInt(n, 10)
		}
	}
}
