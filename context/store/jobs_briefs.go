package store

import (
	"context"
	"fmt"
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
func (s *Store) JobBriefs(ctx context.Context, ctxID uint64) ([]JobBrief, error) {
	db, err := s.DB(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.JobBriefs: %w", err)
	}
	var out []JobBrief
	err = scanPages(ctx, db, "job:*", func(keys []string) error {
		page, err := briefPage(ctx, db, keys)
		out = append(out, page...)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store.JobBriefs: %w", err)
	}
	return out, nil
}

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
