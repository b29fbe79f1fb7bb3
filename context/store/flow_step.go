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
func (s *Store) ApplyFlowStep(ctx context.Context, ctxID, flowID uint64, step FlowStep) (bool, []string, error) {
	db, err := s.DB(ctxID)
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
