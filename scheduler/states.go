package scheduler

// NodeState is the progress of one job of a flow, persisted in
// flow_nodes:<flow id>.
type NodeState string

// Node states. A node moves pending → ready → dispatched → (running) →
// completed | failed, or to cancelled from any state before those.
// "running" is shown when the job's hash says started; the stored state
// stays dispatched until the job ends.
const (
	StatePending    NodeState = "pending"
	StateReady      NodeState = "ready"
	StateDispatched NodeState = "dispatched"
	StateRunning    NodeState = "running"
	StateCompleted  NodeState = "completed"
	StateFailed     NodeState = "failed"
	StateCancelled  NodeState = "cancelled"
)

// Terminal reports whether the node has ended.
func (s NodeState) Terminal() bool {
	return s == StateCompleted || s == StateFailed || s == StateCancelled
}

// InFlight reports whether a runner has the node's job.
func (s NodeState) InFlight() bool { return s == StateDispatched || s == StateRunning }

var (
	inFlight = []string{string(StateDispatched), string(StateRunning)}
	open     = []string{string(StatePending), string(StateReady), string(StateDispatched), string(StateRunning)}
)

// Extra fields of ours on the flow and job hashes (model.Extra).
const (
	fOnFailure    = "on_failure"        // flow: wait | stop
	fTimeout      = "timeout"           // flow: whole seconds, 0 = none
	fDeadline     = "deadline_ms"       // flow: unix ms when it times out
	fError        = "error"             // flow: why it failed
	fStartedAt    = "started_at"        // flow: unix s
	fEndedAt      = "ended_at"          // flow: unix s
	fContinue     = "continue_on_error" // job: true | false
	fPin          = "runner_pin"        // job: the runner the file asked for
	fDispatchedAt = "dispatched_at"     // job: unix s of the current attempt
	fMessage      = "flow_msg"          // job: message key of a remote attempt
)
