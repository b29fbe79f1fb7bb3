package control

import (
	"context"
	"slices"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
)

// FlowDAG is flow.dag's answer, after the seed coordinator's DAG (seed
// 002): the flow's jobs as nodes keyed by job id, the edges between them
// (from must finish before to), roots (no upstream), leaves (no
// downstream), levels (jobs grouped by depth: every job's upstream jobs
// sit in earlier levels) and each node's state.
type FlowDAG struct {
	FlowID       uint64             `json:"flow_id"`
	CallerID     uint64             `json:"caller_id"`
	ContextID    uint64             `json:"context_id"`
	Status       string             `json:"status"`
	Nodes        map[string]DAGNode `json:"nodes"`
	Edges        []DAGEdge          `json:"edges"`
	ReverseEdges []DAGEdge          `json:"reverse_edges"`
	Roots        []uint64           `json:"roots"`
	Leaves       []uint64           `json:"leaves"`
	Levels       [][]uint64         `json:"levels"`
	Started      []uint64           `json:"started"`   // nodes dispatched or running
	Completed    []uint64           `json:"completed"` // nodes completed
	Failed       []uint64           `json:"failed"`    // nodes failed
	FailedJob    uint64             `json:"failed_job,omitempty"`
}

// DAGNode is one job of a flow (the seed's FlowNode).
type DAGNode struct {
	ID            uint64   `json:"id"`
	Name          string   `json:"name,omitempty"`
	Depends       []uint64 `json:"depends"`
	Prerequisites []string `json:"prerequisites"`
	ScriptType    string   `json:"script_type"`
	// NodeStatus is the node's state: pending, ready, dispatched,
	// running, completed, failed or cancelled.
	NodeStatus string `json:"node_status"`
	Status     string `json:"status"` // the job hash's own status
}

// DAGEdge says job From must finish before job To starts.
type DAGEdge struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}

// flowDAG builds flow p's DAG from its records: each job's upstream ids
// are its dependends (model.RunnerJob.Upstream also reads flows stored
// before, which kept them in prerequisites).
func (h *Handlers) flowDAG(ctx context.Context, p SeedRef) (*FlowDAG, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	g, err := h.Store.LoadFlowGraph(ctx, p.ContextID, p.ID)
	if err != nil {
		return nil, err
	}
	f := g.Flow
	d := &FlowDAG{FlowID: f.ID, CallerID: f.CallerID, ContextID: p.ContextID, Status: string(f.Status),
		Nodes: map[string]DAGNode{}, Edges: []DAGEdge{}, ReverseEdges: []DAGEdge{}, Roots: []uint64{},
		Leaves: []uint64{}, Started: []uint64{}, Completed: []uint64{}, Failed: []uint64{}}
	upstream := map[uint64][]uint64{}
	for i, j := range g.Jobs {
		if j == nil {
			return nil, api.Errorf(api.CodeNotFound, "flow %d lists job %d, which does not exist", f.ID, f.Jobs[i])
		}
		up, prereq := j.Upstream(), nzs(j.ExternalPrerequisites())
		upstream[j.ID] = up
		st := nodeStatus(g.Nodes[j.Name], j.Status)
		d.Nodes[u64(j.ID)] = DAGNode{ID: j.ID, Name: j.Name, Depends: nz(up), Prerequisites: prereq,
			ScriptType: j.ScriptType, NodeStatus: string(st), Status: string(j.Status)}
		d.track(j.ID, st)
	}
	if cyc := findCycle(f.Jobs, upstream); cyc != nil {
		return nil, api.Errorf(api.CodeConflict, "flow %d is not a DAG: its jobs make a cycle %v", f.ID, cyc)
	}
	d.link(f.Jobs, upstream)
	return d, nil
}

// nodeStatus is a node's state as shown: running from the moment its job
// starts (the stored state says dispatched until it ends), pending when
// the flow has none yet.
func nodeStatus(stored string, job model.JobStatus) model.NodeState {
	st := model.NodeState(stored)
	switch {
	case st == "":
		return model.NodePending
	case st == model.NodeDispatched && job == model.JobStarted:
		return model.NodeRunning
	}
	return st
}

func (d *FlowDAG) track(id uint64, st model.NodeState) {
	switch st {
	case model.NodeDispatched, model.NodeRunning:
		d.Started = append(d.Started, id)
	case model.NodeCompleted:
		d.Completed = append(d.Completed, id)
	case model.NodeFailed:
		d.Failed = append(d.Failed, id)
		if d.FailedJob == 0 {
			d.FailedJob = id
		}
	}
}

// link fills edges, roots, leaves and levels from the upstream ids of an
// acyclic graph, in the flow's job order.
func (d *FlowDAG) link(ids []uint64, upstream map[uint64][]uint64) {
	hasDown := map[uint64]bool{}
	for _, id := range ids {
		for _, up := range upstream[id] {
			d.Edges = append(d.Edges, DAGEdge{From: up, To: id})
			d.ReverseEdges = append(d.ReverseEdges, DAGEdge{From: id, To: up})
			hasDown[up] = true
		}
		if len(upstream[id]) == 0 {
			d.Roots = append(d.Roots, id)
		}
	}
	level := map[uint64]int{}
	var depth func(id uint64) int
	depth = func(id uint64) int {
		if l, ok := level[id]; ok {
			return l
		}
		l := 0
		for _, up := range upstream[id] {
			l = max(l, depth(up)+1)
		}
		level[id] = l
		return l
	}
	d.Levels = [][]uint64{}
	for _, id := range ids {
		if !hasDown[id] {
			d.Leaves = append(d.Leaves, id)
		}
		l := depth(id)
		for len(d.Levels) <= l {
			d.Levels = append(d.Levels, []uint64{})
		}
		d.Levels[l] = append(d.Levels[l], id)
	}
	for _, lv := range d.Levels {
		slices.Sort(lv)
	}
}
