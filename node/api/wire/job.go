package wire

import "github.com/hyphae-run/hyphae/context/model"

// JobRunParams submits a job.
type JobRunParams struct {
	// To is "self" (default), a peer ID, "any" (see ToAny) or runner:<id>:
	// the agent a runner record of context Context here names.
	To      string            `json:"to,omitempty"`
	Context uint64            `json:"context"`
	Type    string            `json:"type"`
	Script  string            `json:"script"`
	Name    string            `json:"name,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Timeout int64             `json:"timeout,omitempty"` // seconds
	Retries int64             `json:"retries,omitempty"`
	// MemoryMB and CPU limit the job (MiB, cores) where its runner has
	// cgroups; elsewhere it runs with a warning in its log (node.info says
	// which).
	MemoryMB int64   `json:"memory_mb,omitempty"`
	CPU      float64 `json:"cpu,omitempty"`
	// Network "none" runs the job in a network namespace of its own with
	// only loopback (contained, docs/design.md, "Contained jobs"); "" or "host" = the host's.
	Network string `json:"network,omitempty"`
	// Wait, in seconds, makes job.run block until the job ends (or Wait
	// passes) and return it as it is then: a submit and a job.wait in
	// one call.
	Wait int64 `json:"wait,omitempty"`
	// RunAt (unix seconds) or Delay (seconds from now) hold the job back
	// until then: it waits in the context's timers, in Redis, and is
	// queued when due.
	RunAt int64 `json:"run_at,omitempty"`
	Delay int64 `json:"delay,omitempty"`
	// IdempotencyKey: a second submission with the same key within the
	// retention window answers the first one's job, deduplicated, instead
	// of running again (docs/idempotency.md).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// KeyedParams: concurrency_key and max_in_flight (docs/flow-control.md).
	KeyedParams
	// TraceParams: the caller's traceparent or trace_id, kept.
	TraceParams
	// Outputs are paths or globs relative to the job's directory: the
	// files they match when it finishes become its files (docs/design.md,
	// "Files between jobs").
	Outputs []string `json:"outputs,omitempty"`
	// Inputs are files uploaded to this agent (POST /files) that the job
	// finds under in/ before it starts, wherever it runs.
	Inputs []InputParam `json:"inputs,omitempty"`
}

// ToAny, as JobRunParams.To, sends the job to the least loaded runner
// registered in the job's context (runner:<id> with its pubkey) that is up
// and runs its type, else to this agent when its runner does; it waits in
// the outbox while a registered runner is down, and is refused
// (bridge.ErrNoRunner) when none can ever run it. Presence only ranks
// registered runners: a peer that merely announces itself gets nothing.
const ToAny = "any"

// JobRef names a job in a context by key (job:<caller>:<id>).
type JobRef struct {
	Context uint64 `json:"context"`
	Key     string `json:"key"`
}

// JobListParams are job.list's parameters.
type JobListParams struct {
	Context uint64 `json:"context"`
	Status  string `json:"status,omitempty"` // only jobs in this status
	Limit   int    `json:"limit,omitempty"`  // at most this many, newest first (0: all)
}

// JobView is a job as the API shows it.
type JobView struct {
	Key       string            `json:"key"`
	ID        uint64            `json:"id"`
	CallerID  uint64            `json:"caller_id"`
	ContextID uint64            `json:"context_id"`
	Name      string            `json:"name,omitempty"`
	FlowID    uint64            `json:"flow_id,omitempty"`
	Type      string            `json:"script_type"`
	Script    string            `json:"script"`
	Status    string            `json:"status"`
	Result    map[string]string `json:"result"`
	Error     string            `json:"error"`
	Attempt   int64             `json:"attempt"`
	Retries   int64             `json:"retries"`
	Timeout   int64             `json:"timeout"`
	Runner    string            `json:"runner,omitempty"`
	EnvVars   map[string]string `json:"env_vars,omitempty"`
	CreatedAt int64             `json:"created_at"`
	UpdatedAt int64             `json:"updated_at"`

	// State is Status, "cancelled" for a job its flow cancelled (Status
	// error), or "unknown" while the agent the job went to is unreachable (since UnreachableSince, unix s): it may be running or
	// done there, and its result is taken when the agent returns.
	State            string `json:"state"`
	UnreachableSince int64  `json:"unreachable_since,omitempty"`
	// LateResult is a result that came from an agent after the job had
	// been given up on there as lost; it changed nothing else.
	LateResult *model.LateResult `json:"late_result,omitempty"`
	// RunAt (unix seconds) is when a delayed job may start.
	RunAt float64 `json:"run_at,omitempty"`
	// IdempotencyKey is the key the job was submitted with. Deduplicated
	// says this answer is an earlier submission's job (the key had been
	// used), ContentDiffers that that submission's content was not this
	// one's; DuplicateOf, on a job that did not run because its key had
	// been used, names the job that used it first (docs/idempotency.md).
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	Deduplicated   bool   `json:"deduplicated,omitempty"`
	ContentDiffers bool   `json:"content_differs,omitempty"`
	DuplicateOf    string `json:"duplicate_of,omitempty"`
	// TraceID is the job's W3C traceparent (model.ExtraTraceID): the
	// same on every agent the job went through, and in their log lines.
	TraceID string `json:"trace_id,omitempty"`
	// KeyedParams: the job's concurrency key and limit (docs/flow-control.md).
	KeyedParams
	// Outputs are the job's output patterns, Files what they matched when
	// it finished (path, size, sha256, mode), on the agent RanOn names
	// (this one when empty).
	Outputs []string   `json:"outputs,omitempty"`
	Files   []FileView `json:"files,omitempty"`
	RanOn   string     `json:"ran_on,omitempty"`
}

// KeyedParams orders jobs per key (JobRunParams embeds it): jobs of a
// context with the same concurrency_key run at most max_in_flight at a
// time (default 1: one after another, in submission order), on the
// runner that takes them; see docs/flow-control.md.
type KeyedParams struct {
	ConcurrencyKey string `json:"concurrency_key,omitempty"`
	MaxInFlight    int64  `json:"max_in_flight,omitempty"`
}

// TraceParams are the trace parameters every submitting method takes: a
// caller's W3C traceparent, or a bare 32-hex trace_id. The submission
// keeps that trace id (with a span id of its own); without either it gets
// a new one. The answer's trace_id is the traceparent stored.
type TraceParams struct {
	Traceparent string `json:"traceparent,omitempty"`
	TraceID     string `json:"trace_id,omitempty"`
}

// Concurrency is the job's model.Concurrency.
func (p KeyedParams) Concurrency() model.Concurrency {
	return model.Concurrency{Key: p.ConcurrencyKey, MaxInFlight: p.MaxInFlight}
}

// Caller is the trace the caller gave, "" for none.
func (p TraceParams) Caller() string {
	if p.Traceparent != "" {
		return p.Traceparent
	}
	return p.TraceID
}
