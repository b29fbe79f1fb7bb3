package store

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// JobBrief is the few fields of a job that filtering, sorting and counting
// a context's jobs need (the dashboard's jobs view and its overview): read
// with HMGET, so a page of a large context does not load every script,
// result and env.
type JobBrief struct {
	Key        string
	CallerID   uint64
	ID         uint64
	FlowID     uint64
	Name       string
	ScriptType string
	Status     model.JobStatus
	Error      string
	CreatedAt  int64
	UpdatedAt  int64
}

// briefFields are the hash fields a JobBrief reads, in HMGET order.
var briefFields = []string{"name", "flow_id", "script_type", "status", "created_at", "updated_at", "error"}

// JobBriefs returns a brief of every job of a context, unordered: one SCAN
// and one pipelined HMGET per page of keys.
func (s *Jobs) JobBriefs(ctx context.Context, ctxID uint64) ([]JobBrief, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.JobBriefs: %w", err)
	}
	var out []JobBrief
	seen := map[string]bool{} // SCAN may return a key twice
	var cursor uint64
	for {
		keys, next, err := db.Scan(ctx, cursor, "job:*", briefPageSize).Result()
		if err != nil {
			return nil, fmt.Errorf("store.JobBriefs: scan: %w", err)
		}
		keys = slices.DeleteFunc(keys, func(k string) bool { dup := seen[k]; seen[k] = true; return dup })
		page, err := briefPage(ctx, db, keys)
		if err != nil {
			return nil, fmt.Errorf("store.JobBriefs: %w", err)
		}
		out = append(out, page...)
		if cursor = next; cursor == 0 {
			return out, nil
		}
	}
}

// briefPageSize is the COUNT of one SCAN and so about the HMGETs of one
// pipeline: large, because a context of 100,000 jobs is read in round
// trips of this many.
const briefPageSize = 5000

// briefPage reads the briefs of keys in one pipeline, skipping keys that
// are not job keys or were deleted since the scan.
func briefPage(ctx context.Context, db *redis.Client, keys []string) ([]JobBrief, error) {
	cmds, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, k := range keys {
			p.HMGet(ctx, k, briefFields...)
		}
		return nil
	})
	if err != nil && !isWrongType(err) {
		return nil, err
	}
	out := make([]JobBrief, 0, len(keys))
	for i, cmd := range cmds {
		vals, err := cmd.(*redis.SliceCmd).Result()
		caller, id, perr := ParseJobKey(keys[i])
		if err != nil || perr != nil || vals[3] == nil {
			continue // not a job hash, or gone
		}
		out = append(out, JobBrief{Key: keys[i], CallerID: caller, ID: id, Name: str(vals[0]),
			FlowID: num[uint64](vals[1]), ScriptType: str(vals[2]), Status: model.JobStatus(str(vals[3])),
			CreatedAt: num[int64](vals[4]), UpdatedAt: num[int64](vals[5]), Error: str(vals[6])})
	}
	for i := range out {
		if out[i].CreatedAt == 0 { // a seed client's job without created_at (jobs_first_seen.go)
			out[i].CreatedAt = firstSeen(ctx, db, out[i].Key)
		}
	}
	return out, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num[T int64 | uint64](v any) T {
	s, _ := v.(string)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return T(n)
	}
	return 0
}

// ChangeStamp is a cheap sign that context ctxID's jobs changed: the
// context DB's key count, which a new job moves (its hash), and a job's
// start and end as a rule too (its lease, its reply list). It misses a
// change that adds one key as another goes, so users of it also look
// again after a while. "" when the store does not answer.
func (s *Jobs) ChangeStamp(ctx context.Context, ctxID uint64) string {
	db, err := s.db(ctxID)
	if err != nil {
		return ""
	}
	n, err := db.DBSize(ctx).Result()
	if err != nil {
		return ""
	}
	return strconv.FormatInt(n, 10)
}
