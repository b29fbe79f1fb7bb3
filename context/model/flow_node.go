package model

// NodeState is the progress of one job of a flow, persisted in
// flow_nodes:<flow id>. The scheduler moves it; the bridge reads it to
// know whether a flow job's late report still matters, and the CLI shows it.
type NodeState string

// Node states. A node moves pending → ready → dispatched → (running) →
// completed | failed, or to cancelled from any state before those.
// "running" is shown when the job's hash says started; the stored state
// stays dispatched until the job ends.
const (
	NodePending    NodeState = "pending"
	NodeReady      NodeState = "ready"
	NodeDispatched NodeState = "dispatched"
	NodeRunning    NodeState = "running"
	NodeCompleted  NodeState = "completed"
	NodeFailed     NodeState = "failed"
	NodeCancelled  NodeState = "cancelled"
)

// Terminal reports whether the node has ended.
func (s NodeState) Terminal() bool {
	return s == NodeCompleted || s == NodeFailed || s == NodeCancelled
}

// InFlight reports whether a runner has the node's job.
func (s NodeState) InFlight() bool {
	return s == NodeDispatched || s == NodeRunning || s == NodeUnknown
}
