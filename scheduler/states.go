package scheduler

import "github.com/hyphae-run/hyphae/context/model"

var (
	inFlight = []string{string(model.NodeDispatched), string(model.NodeRunning)}
	open     = []string{string(model.NodePending), string(model.NodeReady), string(model.NodeDispatched), string(model.NodeRunning)}
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

// Flow fields (Extra) of a run an event started (starters/trigger.go).
const (
	fEventID = model.ExtraEventID
	fCorrID  = model.ExtraCorrelationID
)
