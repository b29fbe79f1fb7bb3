package store

// Keys of the flow scheduler (context DB). Like keys.go, these helpers are
// the only place these names are built.

// FlowNodesKey is flow_nodes:<flow id>, a hash job name → node state
// (pending, ready, dispatched, running, completed, failed, cancelled): the
// per-node progress a restarted supervisor resumes from.
func FlowNodesKey(flowID uint64) string { return "flow_nodes:" + u(flowID) }

// FlowResultsKey is flow_results:<flow id>, a hash "<job>.<key>" → value
// collecting job results while the flow runs; the flow's `result` field
// gets a copy when it ends.
func FlowResultsKey(flowID uint64) string { return "flow_results:" + u(flowID) }

// FlowsActiveKey is the set of ids of the context's started, unfinished
// flows (recovery walks it instead of scanning flow:*).
const FlowsActiveKey = "flows_active"

// JobsDoneProcessingKey is jobs_done:processing:<owner>: the jobs_done
// entries a scheduler took and has not finished handling (BLMOVE target),
// pushed back on jobs_done when it restarts.
func JobsDoneProcessingKey(owner string) string { return "jobs_done:processing:" + owner }
