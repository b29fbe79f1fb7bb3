package store

import (
	"context"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// A context's job index is the sorted set job_index of its DB: every job
// key, scored by its created_at (unix s). The scripts that create jobs add
// to it (indexJob, luaJobIndex) and retention removes from it, so a reader
// finds the jobs created since it last looked without a SCAN of the whole
// DB. Seed clients that HSET jobs straight into Redis do not index them:
// a full read (JobBriefs) indexes every job it finds (IndexJobs), so such
// jobs are there after the next one (the dashboard's cache makes one at
// least every FullReadEvery).

// JobIndexKey is job_index, the context's job keys by creation time.
const JobIndexKey = "job_index"

// luaJobIndex defines indexJob(job): it adds job to the index with its
// created_at as score, and starts its timeline with "created" (detail:
// the status it was created in). Needs luaTimeline.
const luaJobIndex = `
local function indexJob(job)
  local f = redis.call('HMGET', job, 'created_at', 'status')
  redis.call('ZADD', 'job_index', tonumber(f[1] or '0') or 0, job)
  timeline(job, 'created', f[2] or '')
end
`

// IndexJobs adds briefs' jobs to the index (those there already keep their
// score), in pipelines of briefPageSize.
func (s *Jobs) IndexJobs(ctx context.Context, ctxID uint64, briefs []JobBrief) error {
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.IndexJobs: %w", err)
	}
	for lo := 0; lo < len(briefs); lo += briefPageSize {
		part := briefs[lo:min(len(briefs), lo+briefPageSize)]
		zs := make([]redis.Z, len(part))
		for i, b := range part {
			zs[i] = redis.Z{Score: float64(b.CreatedAt), Member: b.Key}
		}
		if err := db.ZAddNX(ctx, JobIndexKey, zs...).Err(); err != nil {
			return fmt.Errorf("store.IndexJobs: %w", err)
		}
	}
	return nil
}

// IndexedSince returns the keys of the index with a score (created_at) of
// at least since, and how many keys the index holds.
func (s *Jobs) IndexedSince(ctx context.Context, ctxID uint64, since int64) ([]string, int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, 0, fmt.Errorf("store.IndexedSince: %w", err)
	}
	var keys *redis.StringSliceCmd
	var n *redis.IntCmd
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		keys = p.ZRangeByScore(ctx, JobIndexKey, &redis.ZRangeBy{Min: strconv.FormatInt(since, 10), Max: "+inf"})
		n = p.ZCard(ctx, JobIndexKey)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("store.IndexedSince: %w", err)
	}
	return keys.Val(), n.Val(), nil
}

// JobBriefsOf reads the briefs of keys (in pipelines of briefPageSize),
// leaving out keys that are no job or are gone.
func (s *Jobs) JobBriefsOf(ctx context.Context, ctxID uint64, keys []string) ([]JobBrief, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.JobBriefsOf: %w", err)
	}
	var out []JobBrief
	for lo := 0; lo < len(keys); lo += briefPageSize {
		page, err := briefPage(ctx, db, keys[lo:min(len(keys), lo+briefPageSize)])
		if err != nil {
			return nil, fmt.Errorf("store.JobBriefsOf: %w", err)
		}
		out = append(out, page...)
	}
	return out, nil
}

// ChangedSince returns the jobs that moved at or after sinceMS (unix ms,
// the server's clock) and the time of the newest move (sinceMS when none).
// whole is false when moves after sinceMS may have been trimmed away
// (job_changes keeps JobChangesKeep and JobChangesCap): the caller reads
// everything again.
func (s *Jobs) ChangedSince(ctx context.Context, ctxID uint64, sinceMS int64) (keys []string, newest int64, whole bool, err error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, sinceMS, false, fmt.Errorf("store.ChangedSince: %w", err)
	}
	var moved, oldest *redis.ZSliceCmd
	var card *redis.IntCmd
	_, err = db.Pipelined(ctx, func(p redis.Pipeliner) error {
		moved = p.ZRangeByScoreWithScores(ctx, JobChangesKey,
			&redis.ZRangeBy{Min: strconv.FormatInt(sinceMS, 10), Max: "+inf"})
		oldest = p.ZRangeWithScores(ctx, JobChangesKey, 0, 0)
		card = p.ZCard(ctx, JobChangesKey)
		return nil
	})
	if err != nil {
		return nil, sinceMS, false, fmt.Errorf("store.ChangedSince: %w", err)
	}
	zs := moved.Val()
	keys, newest = make([]string, len(zs)), sinceMS
	for i, z := range zs {
		keys[i], _ = z.Member.(string)
		newest = max(newest, int64(z.Score))
	}
	whole = true
	if o := oldest.Val(); len(o) == 1 && int64(o[0].Score) > sinceMS {
		// Entries after sinceMS went if the set is at its cap, or sinceMS
		// is older than what age keeps.
		whole = card.Val() < JobChangesCap && newest-sinceMS < JobChangesKeep.Milliseconds()
	}
	return keys, newest, whole, nil
}

// LastChange is the time of the newest move in job_changes (unix ms, the
// server's clock), 0 when none.
func (s *Jobs) LastChange(ctx context.Context, ctxID uint64) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.LastChange: %w", err)
	}
	zs, err := db.ZRevRangeWithScores(ctx, JobChangesKey, 0, 0).Result()
	if err != nil || len(zs) == 0 {
		return 0, wrap("store.LastChange", err)
	}
	return int64(zs[0].Score), nil
}
