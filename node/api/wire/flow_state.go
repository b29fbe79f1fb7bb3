package wire

import "github.com/hyphae-run/hyphae/context/model"

// FlowState is a flow as a person or a script wants to see it: what
// flow.status, flow.wait and every FlowView show.
type FlowState struct {
	ID        uint64            `json:"id"`
	ContextID uint64            `json:"context_id"`
	CallerID  uint64            `json:"caller_id"`
	Name      string            `json:"name"`
	Status    model.FlowStatus  `json:"status"`
	Error     string            `json:"error"`
	Result    map[string]string `json:"result"`
	OnFailure string            `json:"on_failure"`
	Timeout   int64             `json:"timeout"` // seconds, 0 = none
	CreatedAt int64             `json:"created_at"`
	StartedAt int64             `json:"started_at,omitempty"`
	EndedAt   int64             `json:"ended_at,omitempty"`
	Jobs      []FlowJobState    `json:"jobs"` // topological order
	Progress  FlowProgress      `json:"progress"`
	Version   string            `json:"version"` // changes whenever anything shown changes
	// Compensation is compensating, compensated or compensation_failed
	// once the flow undoes its finished jobs (docs/sagas.md); "" before.
	Compensation      string `json:"compensation,omitempty"`
	CompensationError string `json:"compensation_error,omitempty"`
	// TraceID is the flow's W3C traceparent, shared by its jobs.
	TraceID string `json:"trace_id,omitempty"`
	// CorrelationID and EventID: of the event that started the flow; ""
	// for a flow started otherwise.
	CorrelationID string `json:"correlation_id,omitempty"`
	EventID       string `json:"event_id,omitempty"`
}

// Terminal reports whether the flow has ended.
func (st *FlowState) Terminal() bool { return st.Status.Terminal() }

// FlowJobState is one job of a flow.
type FlowJobState struct {
	Name            string            `json:"name"`
	Key             string            `json:"key"`
	State           model.NodeState   `json:"state"`
	Status          model.JobStatus   `json:"status"` // the job hash's own status
	Type            string            `json:"script_type"`
	Runner          string            `json:"runner,omitempty"`
	Attempt         int64             `json:"attempt"`
	Retries         int64             `json:"retries"`
	Duration        int64             `json:"duration_seconds"`
	Result          map[string]string `json:"result"`
	Error           string            `json:"error"`
	Needs           []string          `json:"needs"`
	Depth           int               `json:"depth"`
	ContinueOnError bool              `json:"continue_on_error,omitempty"`
	Compensation    *CompState        `json:"compensation,omitempty"` // its compensation, once it runs
	// Host is the host name of the agent that ran it, when known;
	// ReusedFrom the earlier run's job whose result a rerun reused.
	Host       string `json:"host,omitempty"`
	ReusedFrom string `json:"reused_from,omitempty"`
}

// CompState is a job's compensation, once it runs (docs/sagas.md).
type CompState struct {
	Key     string            `json:"key"`
	State   model.NodeState   `json:"state"`
	Status  model.JobStatus   `json:"status,omitempty"`
	Attempt int64             `json:"attempt"`
	Error   string            `json:"error,omitempty"`
	Result  map[string]string `json:"result,omitempty"`
}

// FlowProgress counts a flow's jobs by state; Done = completed + failed +
// cancelled. Unknown counts jobs in flight whose agent is unreachable
// (shown in none of dispatched or running).
type FlowProgress struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	Ready      int `json:"ready"`
	Dispatched int `json:"dispatched"`
	Running    int `json:"running"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	Cancelled  int `json:"cancelled"`
	Unknown    int `json:"unknown"` // in flight on an agent that is unreachable
	Done       int `json:"done"`
}
