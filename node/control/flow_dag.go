package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
)

// flowDAG answers flow.dag: flow p's DAG (scheduler.DAGOf) as the wire
// shows it.
func (h *Handlers) flowDAG(ctx context.Context, p wire.SeedRef) (*wire.FlowDAG, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	g, err := h.Store.Flows.LoadFlowGraph(ctx, p.ContextID, p.ID)
	if err != nil {
		return nil, h.notFound(ctx, err, p.ContextID, flowWhat(p.ID))
	}
	d, err := scheduler.DAGOf(p.ContextID, g)
	var bad *scheduler.DAGError
	switch {
	case errors.As(err, &bad) && bad.Cycle != nil:
		return nil, api.Errorf(api.CodeConflict, "%s", bad.Error())
	case errors.As(err, &bad):
		return nil, api.Errorf(api.CodeNotFound, "%s", bad.Error())
	case err != nil:
		return nil, err
	}
	return h.dagHosts(ctx, dagView(d)), nil
}

func dagView(d *scheduler.DAG) *wire.FlowDAG {
	v := &wire.FlowDAG{FlowID: d.FlowID, CallerID: d.CallerID, ContextID: d.ContextID, Status: d.Status,
		Nodes: make(map[string]wire.DAGNode, len(d.Nodes)), Edges: edgeViews(d.Edges),
		ReverseEdges: edgeViews(d.ReverseEdges), Roots: d.Roots, Leaves: d.Leaves, Levels: d.Levels,
		Started: d.Started, Completed: d.Completed, Failed: d.Failed, FailedJob: d.FailedJob}
	for id, n := range d.Nodes {
		v.Nodes[id] = wire.DAGNode{ID: n.ID, Name: n.Name, Depends: n.Depends, Prerequisites: n.Prerequisites,
			ScriptType: n.ScriptType, NodeStatus: n.NodeStatus, Status: n.Status, Runner: n.Runner, ReusedFrom: n.ReusedFrom}
	}
	return v
}

func edgeViews(es []scheduler.DAGEdge) []wire.DAGEdge {
	out := make([]wire.DAGEdge, len(es))
	for i, e := range es {
		out[i] = wire.DAGEdge(e)
	}
	return out
}
