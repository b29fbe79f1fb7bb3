package scheduler

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// DAG is a flow's graph as its records hold it, after the seed
// coordinator's DAG (seed 002), for the API's flow.dag: the jobs as nodes
// keyed by job id, the edges between them (From must finish before To),
// roots (no upstream), leaves (no downstream), levels (jobs grouped by
// depth: every job's upstream jobs sit in earlier levels) and each node's
// state.
type DAG struct {
	FlowID       uint64
	CallerID     uint64
	ContextID    uint64
	Status       string
	Nodes        map[string]DAGNode
	Edges        []DAGEdge
	ReverseEdges []DAGEdge
	Roots        []uint64
	Leaves       []uint64
	Levels       [][]uint64
	Started      []uint64 // nodes dispatched or running
	Completed    []uint64 // nodes completed
	Failed       []uint64 // nodes failed
	FailedJob    uint64
}

// DAGNode is one job of a flow (the seed's FlowNode).
type DAGNode struct {
	ID            uint64
	Name          string
	Depends       []uint64
	Prerequisites []string
	ScriptType    string
	// NodeStatus is the node's state: pending, ready, dispatched,
	// running, completed, failed or cancelled.
	NodeStatus string
	Status     string // the job hash's own status
	// Runner is where the job ran (peer ID or runner id, "" before it
	// went); ReusedFrom the earlier run's job whose result a rerun reused.
	Runner     string
	ReusedFrom string
}

// DAGEdge says job From must finish before job To starts.
type DAGEdge struct {
	From uint64
	To   uint64
}

// DAGError says why a flow's records make no DAG: a job they list does
// not exist (MissingJob), or the jobs make a cycle (Cycle).
type DAGError struct {
	Flow       uint64
	MissingJob uint64
	Cycle      []uint64
}

func (e *DAGError) Error() string {
	if e.Cycle != nil {
		return fmt.Sprintf("flow %d is not a DAG: its jobs make a cycle %v", e.Flow, e.Cycle)
	}
	return fmt.Sprintf("flow %d lists job %d, which does not exist", e.Flow, e.MissingJob)
}

// DAGOf builds the DAG of flow graph g, read from context ctxID: each
// job's upstream ids are its dependends (model.RunnerJob.Upstream also
// reads flows stored before, which kept them in prerequisites).
func DAGOf(ctxID uint64, g *store.FlowGraph) (*DAG, error) {
	f := g.Flow
	d := &DAG{FlowID: f.ID, CallerID: f.CallerID, ContextID: ctxID, Status: string(f.Status),
		Nodes: map[string]DAGNode{}, Edges: []DAGEdge{}, ReverseEdges: []DAGEdge{}, Roots: []uint64{},
		Leaves: []uint64{}, Started: []uint64{}, Completed: []uint64{}, Failed: []uint64{}}
	upstream := map[uint64][]uint64{}
	for i, j := range g.Jobs {
		if j == nil {
			return nil, &DAGError{Flow: f.ID, MissingJob: f.Jobs[i]}
		}
		up, prereq := j.Upstream(), j.ExternalPrerequisites()
		if up == nil {
			up = []uint64{}
		}
		if prereq == nil {
			prereq = []string{}
		}
		upstream[j.ID] = up
		st := dagNodeState(g.Nodes[j.Name], j.Status)
		d.Nodes[strconv.FormatUint(j.ID, 10)] = DAGNode{ID: j.ID, Name: j.Name, Depends: up, Prerequisites: prereq,
			ScriptType: j.ScriptType, NodeStatus: string(st), Status: string(j.Status), Runner: j.Runner,
			ReusedFrom: j.Extra[fReusedFrom]}
		d.track(j.ID, st)
	}
	if cyc := FindCycle(f.Jobs, upstream); cyc != nil {
		return nil, &DAGError{Flow: f.ID, Cycle: cyc}
	}
	d.link(f.Jobs, upstream)
	return d, nil
}

// dagNodeState is a node's state as shown: running from the moment its job
// starts (the stored state says dispatched until it ends), pending when
// the flow has none yet.
func dagNodeState(stored string, job model.JobStatus) model.NodeState {
	st := model.NodeState(stored)
	switch {
	case st == "":
		return model.NodePending
	case st == model.NodeDispatched && job == model.JobStarted:
		return model.NodeRunning
	}
	return st
}

func (d *DAG) track(id uint64, st model.NodeState) {
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
func (d *DAG) link(ids []uint64, upstream map[uint64][]uint64) {
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

// FindCycle returns the ids of a cycle along upstream edges, or nil.
func FindCycle(ids []uint64, upstream map[uint64][]uint64) []uint64 {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[uint64]int{}
	var path []uint64
	var visit func(id uint64) []uint64
	visit = func(id uint64) []uint64 {
		state[id] = onPath
		path = append(path, id)
		for _, up := range upstream[id] {
			switch state[up] {
			case onPath:
				i := slices.Index(path, up)
				return append(slices.Clone(path[i:]), up)
			case unseen:
				if c := visit(up); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[id] = done
		return nil
	}
	for _, id := range ids {
		if state[id] == unseen {
			if c := visit(id); c != nil {
				return c
			}
		}
	}
	return nil
}
