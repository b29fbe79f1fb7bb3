package wire

import "github.com/hyphae-run/hyphae/context/model"

// FlowCreateParams is a flow file sent whole: its text, the name messages
// use and the directory its script_file paths start from (on this agent's
// machine). Context, when set, overrides the file's. Start also starts it.
type FlowCreateParams struct {
	FileContent string `json:"file_content"`
	FileName    string `json:"file_name,omitempty"`
	BaseDir     string `json:"base_dir,omitempty"`
	Context     uint64 `json:"context,omitempty"`
	Start       bool   `json:"start,omitempty"`
	// IdempotencyKey: a second create (or run) with the key within the
	// retention window answers the first flow (docs/idempotency.md).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// TraceParams: the caller's traceparent or trace_id, which the flow
	// and its jobs keep.
	TraceParams
}

// FlowRef names a flow.
type FlowRef struct {
	Context uint64 `json:"context"`
	ID      uint64 `json:"id"`
}

// FlowWaitParams: block up to Timeout seconds for the flow to end or, with
// After (a previous view's version), for any change.
type FlowWaitParams struct {
	FlowRef
	Timeout int64  `json:"timeout,omitempty"`
	After   string `json:"after,omitempty"`
}

// FlowView is a flow as the API shows it: status, error, result, jobs
// (name, state, status, runner, attempt, duration, result, error, needs)
// in topological order, progress, version; warnings from flow.create.
type FlowView struct {
	FlowState
	Warnings []string `json:"warnings,omitempty"`
	// IdempotencyKey, Deduplicated, ContentDiffers: as on JobView.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	Deduplicated   bool   `json:"deduplicated,omitempty"`
	ContentDiffers bool   `json:"content_differs,omitempty"`
}

// FlowSummary is a row of flow.list: a flow with its job counts.
type FlowSummary struct {
	ID        uint64           `json:"id"`
	ContextID uint64           `json:"context_id"`
	Name      string           `json:"name"`
	Status    model.FlowStatus `json:"status"`
	Error     string           `json:"error,omitempty"`
	Progress  FlowProgress     `json:"progress"`
	CreatedAt int64            `json:"created_at"`
	UpdatedAt int64            `json:"updated_at"`
}

// FlowStartParams start a created flow, once per idempotency key.
type FlowStartParams struct {
	FlowRef
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// FlowRerunParams names an ended flow to run again: From is the job to
// run again with everything that depends on it ("" = the jobs that did
// not complete).
type FlowRerunParams struct {
	FlowRef
	From string `json:"from,omitempty"`
}
