package wire

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
	// Runner is where the job ran (peer ID or runner id), Host that
	// agent's host name when known; ReusedFrom the earlier run's job whose
	// result a rerun reused.
	Runner     string `json:"runner,omitempty"`
	Host       string `json:"host,omitempty"`
	ReusedFrom string `json:"reused_from,omitempty"`
	// SupervisorURL is the seed's FlowNode.supervisor_url, where the job
	// is routed: /p2p/<peer ID> of the agent that runs it ("" before the
	// agent is known).
	SupervisorURL string `json:"supervisor_url"`
}

// DAGEdge says job From must finish before job To starts.
type DAGEdge struct {
	From uint64 `json:"from"`
	To   uint64 `json:"to"`
}
