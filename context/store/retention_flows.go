package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// luaFlowEnded defines flowEnded(status): whether a flow in it has ended
// (model.FlowStatus.Terminal); nil for no known status.
var luaFlowEnded = luaChain("flowEnded", "_",
	[]string{string(model.FlowDispatched), string(model.FlowStarted), string(model.FlowError), string(model.FlowFinished)},
	func(st string) string { return strconv.FormatBool(model.FlowStatus(st).Terminal()) })

// PruneFlows removes the flows of context ctxID that EndedFlows listed,
// each with its node states, collected results and every job of it (with
// their logs, reply lists and stop markers), in one script that checks
// each flow again first: it is still ended with the updated_at listed, not
// among the active flows, and every job of it that still exists may go
// (luaRemovableJob). Otherwise the flow and all its jobs stay. dry removes
// nothing and reports what would go.
func (s *Flows) PruneFlows(ctx context.Context, ctxID uint64, flows []Ended, dry bool) (Pruned, error) {
	if len(flows) == 0 {
		return Pruned{}, nil
	}
	db, err := s.db(ctxID)
	if err != nil {
		return Pruned{}, fmt.Errorf("store.PruneFlows: %w", err)
	}
	keys := append(retentionKeys(), FlowsActiveKey)
	args := []any{dryArg(dry)}
	for _, f := range flows {
		id, err := flowID(f.Key)
		if err != nil {
			return Pruned{}, fmt.Errorf("store.PruneFlows: %w", err)
		}
		keys = append(keys, f.Key, FlowNodesKey(id), FlowResultsKey(id))
		for _, j := range f.Jobs {
			keys = append(keys, jobKeys(j)...)
		}
		args = append(args, id, f.Updated, len(f.Jobs))
	}
	res, err := pruneFlows.Run(ctx, db, keys, args...).Slice()
	if err != nil {
		return Pruned{}, scriptErr("store.PruneFlows", err)
	}
	return flowsPruned(res), nil
}

// flowID parses flow:<id>.
func flowID(key string) (uint64, error) {
	rest, ok := strings.CutPrefix(key, "flow:")
	id, err := strconv.ParseUint(rest, 10, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("key %q: want flow:<id>", key)
	}
	return id, nil
}

// flowsPruned decodes pruneFlows' reply: {bytes, {flow key, job keys…}…}.
func flowsPruned(res []any) Pruned {
	var p Pruned
	if len(res) == 0 {
		return p
	}
	p.Bytes, _ = res[0].(int64)
	for _, v := range res[1:] {
		group, _ := v.([]any)
		for i, k := range group {
			s, _ := k.(string)
			if i == 0 {
				p.Keys = append(p.Keys, s)
			} else {
				p.Jobs = append(p.Jobs, s)
			}
		}
	}
	return p
}

// pruneFlows: see PruneFlows.
// KEYS[1..6] retentionKeys, KEYS[7] flows_active; then per flow: flow:<id>,
// flow_nodes:<id>, flow_results:<id> and, per job of it, the job,
// logs:<job>, reply:<job> and stop:<job>.
// ARGV[1] "dry" or "", then per flow three: its id, the updated_at it had
// when listed, its number of jobs.
// Returns {bytes freed, {flow key, job keys removed…} per flow removed…}.
var pruneFlows = newScript("pruneFlows", luaRemovableJob, luaFlowEnded, `
local K = retentionKeys()
local out = {0}
local k = 8
for a = 2, #ARGV, 3 do
  local flow, n = KEYS[k], tonumber(ARGV[a + 2])
  local f = redis.call('HMGET', flow, 'status', 'updated_at')
  local ok = flowEnded(f[1] or '') and (f[2] or '') == ARGV[a + 1]
    and redis.call('SISMEMBER', KEYS[7], ARGV[a]) == 0
  local jobs = {}
  for j = 0, n - 1 do
    local job = KEYS[k + 3 + 4 * j]
    if ok and redis.call('EXISTS', job) == 1 then
      if removableJob(K, job, nil) then jobs[#jobs + 1] = j else ok = false end
    end
  end
  if ok then
    local group = {flow}
    out[1] = out[1] + usage(flow) + usage(KEYS[k + 1]) + usage(KEYS[k + 2])
    if ARGV[1] ~= 'dry' then redis.call('DEL', flow, KEYS[k + 1], KEYS[k + 2]) end
    for _, j in ipairs(jobs) do
      local b = k + 3 + 4 * j
      out[1] = out[1] + dropJob(ARGV[1], KEYS[b], KEYS[b + 1], KEYS[b + 2], KEYS[b + 3])
      group[#group + 1] = KEYS[b]
    end
    out[#out + 1] = group
  end
  k = k + 3 + 4 * n
end
return out
`)
