package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// LogCapMarker is the line that ends a job log that reached its cap.
const LogCapMarker = "[hyphae] log capped: further lines are only in output.log in the job directory"

// AppendLogs appends lines to logs:<job key>, keeping at most max lines
// (then one LogCapMarker line), and announces the new length on
// LogChannel. Callers batch lines (a few hundred per call at most).
func (s *Logs) AppendLogs(ctx context.Context, ctxID uint64, jobKey string, lines []string, max int) error {
	if len(lines) == 0 {
		return nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return fmt.Errorf("store.AppendLogs: %w", err)
	}
	args := make([]any, 0, 3+len(lines))
	args = append(args, max, LogChannel(ctxID, jobKey), LogCapMarker)
	for _, l := range lines {
		args = append(args, l)
	}
	err = appendLogs.Run(ctx, db, []string{LogKey(jobKey)}, args...).Err()
	return scriptErr("store.AppendLogs", err)
}

// appendLogs: see AppendLogs.
// KEYS[1] logs:<job key>. ARGV[1] cap (lines), ARGV[2] channel,
// ARGV[3] marker line, ARGV[4..] lines. Returns the list's length.
var appendLogs = newScript("appendLogs", luaAppendLines, `
return appendLines(KEYS[1], tonumber(ARGV[1]), ARGV[2], ARGV[3], {unpack(ARGV, 4)})
`)

// ReadLogs returns the log lines of a job from index from on.
func (s *Logs) ReadLogs(ctx context.Context, ctxID uint64, jobKey string, from int64) ([]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogs: %w", err)
	}
	lines, err := db.LRange(ctx, LogKey(jobKey), from, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ReadLogs %s: %w", jobKey, err)
	}
	return lines, nil
}

// FollowLogs calls fn with the job's log lines from index from on, then
// with each new batch as it is written, until the job reaches a final
// status (finished or error; every line written before that is delivered)
// or ctx ends. It returns the index after the last line delivered.
func (s *Logs) FollowLogs(ctx context.Context, ctxID uint64, jobKey string, from int64,
	fn func(lines []string) error) (int64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return from, fmt.Errorf("store.FollowLogs: %w", err)
	}
	ps := s.global.Subscribe(ctx, LogChannel(ctxID, jobKey))
	defer ps.Close()
	wake := ps.Channel()
	for {
		st, err := db.HGet(ctx, jobKey, "status").Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return from, fmt.Errorf("store.FollowLogs %s: %w", jobKey, err)
		}
		if from, err = s.deliverLogs(ctx, ctxID, jobKey, from, fn); err != nil {
			return from, err
		}
		if model.JobStatus(st).Terminal() {
			return from, nil
		}
		select {
		case <-ctx.Done():
			return from, ctx.Err()
		case <-wake:
		case <-time.After(time.Second):
		}
	}
}

func (s *core) deliverLogs(ctx context.Context, ctxID uint64, jobKey string, from int64,
	fn func([]string) error) (int64, error) {
	lines, err := s.logs.ReadLogs(ctx, ctxID, jobKey, from)
	if err != nil || len(lines) == 0 {
		return from, err
	}
	if err := fn(lines); err != nil {
		return from, err
	}
	return from + int64(len(lines)), nil
}
