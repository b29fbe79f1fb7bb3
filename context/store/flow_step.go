package store

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
)

// FlowStep is one atomic step of a flow's state machine (see flowStep).
// Guards: the flow's status must be one of FlowStatus and the node Node
// must be in one of NodeStates (each guard only when set). When they hold,
// every move applies to a node whose state is in its From, Results and
// Flow are written and Active adds or removes the flow from the active set.
type FlowStep struct {
	FlowStatus []string          `json:"flow_status,omitempty"`
	Node       string            `json:"node,omitempty"`
	NodeStates []string          `json:"node_states,omitempty"`
	Moves      []NodeMove        `json:"moves,omitempty"`
	Results    map[string]string `json:"results,omitempty"`
	Flow       model.Hash        `json:"flow,omitempty"`
	Active     string            `json:"active,omitempty"` // "add" or "remove"
	ID         string            `json:"id,omitempty"`     // set by ApplyFlowStep
}

// NodeMove moves node Name to To when its state is one of From.
type NodeMove struct {
	Name string   `json:"n"`
	From []string `json:"f"`
	To   string   `json:"t"`
}

// ApplyFlowStep runs step on flow flowID of context ctxID. It reports
// whether the guards held and which nodes moved.
func (s *Flows) ApplyFlowStep(ctx context.Context, ctxID, flowID uint64, step FlowStep) (bool, []string, error) {
	db, err := s.db(ctxID)
	if err != nil {
		return false, nil, fmt.Errorf("store.ApplyFlowStep: %w", err)
	}
	keys, arg := stepArgs(flowID, step)
	res, err := flowStep.Run(ctx, db, keys, arg).Slice()
	if err != nil {
		return false, nil, scriptErr("store.ApplyFlowStep", err)
	}
	ok, moved, err := stepReply(res)
	if err != nil {
		return false, nil, fmt.Errorf("store.ApplyFlowStep: %w", err)
	}
	return ok, moved, nil
}

// flowStep: see ApplyFlowStep (StepAndDispatch runs it too). It applies
// one step of a flow's state machine, all or nothing.
// KEYS[1] flow:<id>, KEYS[2] flow_nodes:<id>, KEYS[3] flow_results:<id>,
// KEYS[4] flows_active.
// ARGV[1] the step as JSON (FlowStep): {flow_status: [allowed flow
// statuses], node: name, node_states: [allowed states of that node] (both
// guards optional), moves: [{n: name, f: [from states], t: to state}],
// results: {field: value}, flow: {field: value}, active: "add"|"remove",
// id: flow id}.
// A failed guard writes nothing and returns {0}; else moves apply to nodes
// whose state is in f and it returns {1, moved names...}.
var flowStep = newScript("flowStep", luaHsetJSON, `
local spec = cjson.decode(ARGV[1])
local function has(list, v)
  if type(list) ~= 'table' then return false end
  for _, x in ipairs(list) do if x == v then return true end end
  return false
end
if type(spec.flow_status) == 'table' and #spec.flow_status > 0 then
  if not has(spec.flow_status, redis.call('HGET', KEYS[1], 'status') or '') then return {0} end
end
if type(spec.node) == 'string' and spec.node ~= '' then
  if not has(spec.node_states, redis.call('HGET', KEYS[2], spec.node) or '') then return {0} end
end
local out = {1}
if type(spec.moves) == 'table' then
  for _, m in ipairs(spec.moves) do
    if has(m.f, redis.call('HGET', KEYS[2], m.n) or '') then
      redis.call('HSET', KEYS[2], m.n, m.t)
      out[#out + 1] = m.n
    end
  end
end
if type(spec.results) == 'table' then hsetobj(KEYS[3], spec.results) end
if type(spec.flow) == 'table' then hsetobj(KEYS[1], spec.flow) end
if spec.active == 'add' then redis.call('SADD', KEYS[4], spec.id) end
if spec.active == 'remove' then redis.call('SREM', KEYS[4], spec.id) end
return out
`)

func stepArgs(flowID uint64, step FlowStep) ([]string, string) {
	step.ID = u(flowID)
	keys := []string{FlowKey(flowID), FlowNodesKey(flowID), FlowResultsKey(flowID), FlowsActiveKey}
	return keys, mustJSON(step)
}

// stepReply decodes flowStep's reply ({0} or {1, moved...}); it takes the
// reply slice or the command holding it.
func stepReply(v any) (bool, []string, error) {
	res, ok := v.([]any)
	if c, isCmd := v.(*redis.Cmd); isCmd {
		r, err := c.Slice()
		if err != nil {
			return false, nil, err
		}
		res, ok = r, true
	}
	if !ok || len(res) == 0 {
		return false, nil, fmt.Errorf("flow step: bad reply %v", v)
	}
	if n, _ := res[0].(int64); n != 1 {
		return false, nil, nil
	}
	moved := make([]string, 0, len(res)-1)
	for _, x := range res[1:] {
		if name, ok := x.(string); ok {
			moved = append(moved, name)
		}
	}
	return true, moved, nil
}
