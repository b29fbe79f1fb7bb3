package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// What retention (package context/retention) needs of a context DB: the
// objects that have ended, listed page by page with their age, and one
// script per kind that removes a batch of them (retention_jobs.go,
// retention_flows.go, retention_messages.go). The listing only proposes:
// each script checks every item again, atomically with its removal, so an
// object that changed since (requeued, still referred to) stays.

// Ended is a job, flow or message that a listing found ended: its key, its
// updated_at field as read (the script removes it only while it is still
// that), the same as unix seconds (0 when missing or not a number), for a
// job its flow_id (0 for none) and for a flow the keys of its jobs.
type Ended struct {
	Key     string
	Updated string
	At      int64
	Flow    uint64
	Jobs    []string
}

// Pruned is what one prune call removed (or, dry, would remove).
type Pruned struct {
	Keys  []string // the objects removed: job, flow or message keys
	Jobs  []string // every job key removed, a flow's jobs included
	Bytes int64    // Redis memory the removed keys held (MEMORY USAGE, sampled)
}

// listPage is how many keys one SCAN call asks for and one pipeline reads:
// enough to list 10 000 jobs in a few dozen round trips, little enough
// that no call holds Redis for long.
const listPage = 500

// scanPages calls fn with each page of the keys of type hash matching
// pattern (a key SCAN returns twice is passed once).
func scanPages(ctx context.Context, db *redis.Client, pattern string, fn func([]string) error) error {
	seen := map[string]bool{}
	var cursor uint64
	for {
		keys, next, err := db.ScanType(ctx, cursor, pattern, listPage, "hash").Result()
		if err != nil {
			return fmt.Errorf("scan %s: %w", pattern, err)
		}
		page := keys[:0]
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				page = append(page, k)
			}
		}
		if len(page) > 0 {
			if err := fn(page); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// readFields reads the named fields of each key in one pipeline.
func readFields(ctx context.Context, db *redis.Client, keys []string, fields ...string) ([][]string, error) {
	cmds := make([]*redis.SliceCmd, len(keys))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HMGet(ctx, k, fields...)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	out := make([][]string, len(keys))
	for i, c := range cmds {
		out[i] = make([]string, len(fields))
		for j, v := range c.Val() {
			out[i][j], _ = v.(string)
		}
	}
	return out, nil
}

// ended is the Ended of key from its updated_at field.
func ended(key, updated string) Ended {
	at, _ := strconv.ParseInt(updated, 10, 64)
	return Ended{Key: key, Updated: updated, At: at}
}

// EndedJobs lists the jobs of context ctxID that ended (finished or
// error) and do not belong to a flow that still exists: those go with
// their flow (EndedFlows).
func (s *Jobs) EndedJobs(ctx context.Context, ctxID uint64) ([]Ended, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.EndedJobs: %w", err)
	}
	var out []Ended
	flows := map[string]bool{} // flow id → its hash exists
	err = scanPages(ctx, db, "job:*", func(keys []string) error {
		rows, err := readFields(ctx, db, keys, "status", "updated_at", "flow_id")
		if err != nil {
			return err
		}
		if err := s.knownFlows(ctx, db, rows, flows); err != nil {
			return err
		}
		for i, r := range rows {
			if model.JobStatus(r[0]).Terminal() && !flows[r[2]] {
				e := ended(keys[i], r[1])
				e.Flow, _ = strconv.ParseUint(r[2], 10, 64)
				out = append(out, e)
			}
		}
		return nil
	})
	return out, wrap("store.EndedJobs", err)
}

// knownFlows records in flows whether the hash of each flow id named by
// rows (third column) exists, asking only about ids not seen before.
func (s *core) knownFlows(ctx context.Context, db *redis.Client, rows [][]string, flows map[string]bool) error {
	var ask []string
	for _, r := range rows {
		if id := r[2]; id != "" && id != "0" {
			if _, known := flows[id]; !known {
				flows[id] = false
				ask = append(ask, id)
			}
		}
	}
	cmds := make([]*redis.IntCmd, len(ask))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ask {
			n, _ := strconv.ParseUint(id, 10, 64)
			cmds[i] = p.Exists(ctx, FlowKey(n))
		}
		return nil
	}); err != nil && len(ask) > 0 {
		return err
	}
	for i, id := range ask {
		flows[id] = cmds[i].Val() == 1
	}
	return nil
}

// EndedFlows lists the flows of context ctxID that ended (finished or
// error), each with the keys of its jobs.
func (s *Flows) EndedFlows(ctx context.Context, ctxID uint64) ([]Ended, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.EndedFlows: %w", err)
	}
	var out []Ended
	err = scanPages(ctx, db, "flow:*", func(keys []string) error {
		rows, err := readFields(ctx, db, keys, "status", "updated_at", "caller_id", "jobs")
		if err != nil {
			return err
		}
		var page []Ended
		for i, r := range rows {
			if !model.FlowStatus(r[0]).Terminal() {
				continue
			}
			e := ended(keys[i], r[1])
			e.Jobs = flowJobKeys(r[2], r[3])
			page = append(page, e)
		}
		if err := addCompensations(ctx, db, page); err != nil {
			return err
		}
		out = append(out, page...)
		return nil
	})
	return out, wrap("store.EndedFlows", err)
}

// compensateKeyField is the job field naming its compensation's job
// (written by the scheduler for a job with compensate:).
const compensateKeyField = "compensate_key"

// addCompensations adds to each ended flow the jobs that compensated its
// jobs, so a pruned saga leaves none of them behind.
func addCompensations(ctx context.Context, db *redis.Client, flows []Ended) error {
	var cmds []*redis.StringCmd
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, f := range flows {
			for _, j := range f.Jobs {
				cmds = append(cmds, p.HGet(ctx, j, compensateKeyField))
			}
		}
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	i := 0
	for fi := range flows {
		for range len(flows[fi].Jobs) {
			if k := cmds[i].Val(); k != "" {
				flows[fi].Jobs = append(flows[fi].Jobs, k)
			}
			i++
		}
	}
	return nil
}

// flowJobKeys are the job keys of a flow from its caller_id and jobs (a
// JSON list of ids); none when either does not parse.
func flowJobKeys(caller, jobs string) []string {
	c, err := strconv.ParseUint(caller, 10, 64)
	var ids []json.Number
	if err != nil || json.Unmarshal([]byte(jobs), &ids) != nil {
		return nil
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if n, err := strconv.ParseUint(id.String(), 10, 64); err == nil {
			out = append(out, JobKey(c, n))
		}
	}
	return out
}

// EndedMessages lists the messages of context ctxID that are settled
// (processed or error).
func (s *Bus) EndedMessages(ctx context.Context, ctxID uint64) ([]Ended, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.EndedMessages: %w", err)
	}
	var out []Ended
	err = scanPages(ctx, db, "message:*", func(keys []string) error {
		rows, err := readFields(ctx, db, keys, "status", "updated_at")
		if err != nil {
			return err
		}
		for i, r := range rows {
			if messageSettled(model.MessageStatus(r[0])) {
				out = append(out, ended(keys[i], r[1]))
			}
		}
		return nil
	})
	return out, wrap("store.EndedMessages", err)
}

// settledMessage lists the message statuses that end a message's life.
var settledMessage = []model.MessageStatus{model.MsgProcessed, model.MsgError}

func messageSettled(st model.MessageStatus) bool {
	for _, s := range settledMessage {
		if st == s {
			return true
		}
	}
	return false
}

// pruneReply decodes a prune script's reply: {bytes, removed keys…}.
func pruneReply(res []any) Pruned {
	var p Pruned
	if len(res) == 0 {
		return p
	}
	p.Bytes, _ = res[0].(int64)
	for _, v := range res[1:] {
		if k, ok := v.(string); ok {
			p.Keys = append(p.Keys, k)
		}
	}
	return p
}

// dryArg is the scripts' ARGV[1]: "dry" checks without removing.
func dryArg(dry bool) string {
	if dry {
		return "dry"
	}
	return ""
}

// Existing reports which of keys exist in context ctxID's DB, in one
// pipeline (callers pass a page at a time).
func (s *Jobs) Existing(ctx context.Context, ctxID uint64, keys []string) (map[string]bool, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.Existing: %w", err)
	}
	cmds := make([]*redis.IntCmd, len(keys))
	if _, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.Exists(ctx, k)
		}
		return nil
	}); err != nil && len(keys) > 0 {
		return nil, fmt.Errorf("store.Existing: %w", err)
	}
	out := make(map[string]bool, len(keys))
	for i, k := range keys {
		out[k] = cmds[i].Val() == 1
	}
	return out, nil
}
