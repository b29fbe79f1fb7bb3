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

// FlowGraph is a flow with its jobs (in the flow's `jobs` order; nil where
// a job hash is missing), node states and the results collected so far.
type FlowGraph struct {
	Flow    *model.Flow
	Jobs    []*model.RunnerJob
	Nodes   map[string]string
	Results map[string]string
}

// ReserveIDs allocates n consecutive ids of kind in context ctxID and
// returns the first.
func (s *Flows) ReserveIDs(ctx context.Context, ctxID uint64, kind string, n int) (uint64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return 0, fmt.Errorf("store.ReserveIDs: %w", err)
	}
	if n < 1 {
		return 0, fmt.Errorf("store.ReserveIDs: n = %d", n)
	}
	last, err := db.IncrBy(ctx, SeqKey(kind), int64(n)).Result()
	if err != nil {
		return 0, fmt.Errorf("store.ReserveIDs %s: %w", kind, err)
	}
	return uint64(last) - uint64(n) + 1, nil
}

// SaveFlowGraph writes a new flow (ids already allocated), its jobs and its
// node states atomically; ErrExists when any of the keys exists.
func (s *Flows) SaveFlowGraph(ctx context.Context, f *model.Flow, jobs []*model.RunnerJob, nodes map[string]string) error {
	db, err := s.db(f.ContextID)
	if err != nil {
		return fmt.Errorf("store.SaveFlowGraph: %w", err)
	}
	stamp(&f.CreatedAt, &f.UpdatedAt)
	keys := []string{FlowKey(f.ID), FlowNodesKey(f.ID)}
	args := []any{mustJSON(f.ToHash()), mustJSON(nodes)}
	for _, j := range jobs {
		stamp(&j.CreatedAt, &j.UpdatedAt)
		keys = append(keys, JobKey(j.CallerID, j.ID))
		args = append(args, mustJSON(j.ToHash()))
	}
	return scriptErr("store.SaveFlowGraph", createFlow.Run(ctx, db, keys, args...).Err())
}

// createFlow: see SaveFlowGraph. It refuses ids that exist already
// (nothing is written then).
// KEYS[1] flow:<id>, KEYS[2] flow_nodes:<id>, KEYS[3..] job keys.
// ARGV[1] flow hash, ARGV[2] node states, ARGV[3..] job hashes in KEYS
// order — each a JSON object of strings.
// Returns 1, or an error "exists: <key>".
var createFlow = newScript("createFlow", luaHsetJSON, luaTimeline, luaJobIndex, `
for i = 1, #KEYS do
  if i ~= 2 and redis.call('EXISTS', KEYS[i]) == 1 then
    return redis.error_reply('exists: ' .. KEYS[i])
  end
end
hsetjson(KEYS[1], ARGV[1])
hsetjson(KEYS[2], ARGV[2])
for i = 3, #KEYS do hsetjson(KEYS[i], ARGV[i]) end
for i = 3, #KEYS do indexJob(KEYS[i]) end
return 1
`)

// LoadFlowGraph reads flow:<id> with its jobs, node states and results in
// one round trip after the flow itself.
func (s *Flows) LoadFlowGraph(ctx context.Context, ctxID, flowID uint64) (*FlowGraph, error) {
	f, err := s.LoadFlow(ctx, ctxID, flowID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadFlowGraph: %w", err)
	}
	keys := make([]string, len(f.Jobs))
	for i, id := range f.Jobs {
		keys[i] = JobKey(f.CallerID, id)
	}
	db, _ := s.db(ctxID)
	var nodes, results *redis.MapStringStringCmd
	jobs, err := s.loadJobs(ctx, db, ctxID, keys, func(p redis.Pipeliner) {
		nodes = p.HGetAll(ctx, FlowNodesKey(flowID))
		results = p.HGetAll(ctx, FlowResultsKey(flowID))
	})
	if err != nil {
		return nil, fmt.Errorf("store.LoadFlowGraph: %w", err)
	}
	return &FlowGraph{Flow: f, Jobs: jobs, Nodes: nodes.Val(), Results: results.Val()}, nil
}

// LoadJobKeys reads several jobs in one round trip; a missing job is nil.
func (s *Flows) LoadJobKeys(ctx context.Context, ctxID uint64, keys []string) ([]*model.RunnerJob, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJobKeys: %w", err)
	}
	jobs, err := s.loadJobs(ctx, db, ctxID, keys, nil)
	if err != nil {
		return nil, fmt.Errorf("store.LoadJobKeys: %w", err)
	}
	return jobs, nil
}

func (s *core) loadJobs(ctx context.Context, db *redis.Client, ctxID uint64, keys []string,
	extra func(redis.Pipeliner)) ([]*model.RunnerJob, error) {
	cmds := make([]*redis.MapStringStringCmd, len(keys))
	_, err := db.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.HGetAll(ctx, k)
		}
		if extra != nil {
			extra(p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	out := make([]*model.RunnerJob, len(keys))
	for i, c := range cmds {
		if len(c.Val()) == 0 {
			continue
		}
		j, err := model.JobFromHash(keys[i], c.Val())
		if err != nil {
			return nil, err
		}
		if j.ContextID == 0 {
			j.ContextID = ctxID
		}
		out[i] = j
	}
	stampJobs(ctx, db, out) // a seed client's jobs without created_at (jobs_first_seen.go)
	return out, nil
}

// FlowNodes returns the node states of a flow (job name → state).
func (s *Flows) FlowNodes(ctx context.Context, ctxID, flowID uint64) (map[string]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.FlowNodes: %w", err)
	}
	h, err := db.HGetAll(ctx, FlowNodesKey(flowID)).Result()
	return h, wrap("store.FlowNodes", err)
}

// FlowResults returns the results collected so far ("<job>.<key>" → value).
func (s *Flows) FlowResults(ctx context.Context, ctxID, flowID uint64) (map[string]string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.FlowResults: %w", err)
	}
	h, err := db.HGetAll(ctx, FlowResultsKey(flowID)).Result()
	return h, wrap("store.FlowResults", err)
}

// ActiveFlows returns the ids of the context's started, unfinished flows.
func (s *Flows) ActiveFlows(ctx context.Context, ctxID uint64) ([]uint64, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return nil, fmt.Errorf("store.ActiveFlows: %w", err)
	}
	ms, err := db.SMembers(ctx, FlowsActiveKey).Result()
	if err != nil {
		return nil, fmt.Errorf("store.ActiveFlows: %w", err)
	}
	out := make([]uint64, 0, len(ms))
	for _, m := range ms {
		if id, err := strconv.ParseUint(m, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("store: json: " + err.Error()) // maps of strings always encode
	}
	return string(b)
}
