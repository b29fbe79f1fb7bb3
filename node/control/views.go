package control

import (
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

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

	// State is Status, or "unknown" while the agent the job went to is
	// unreachable (since UnreachableSince, unix s): it may be running or
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
}

func jobView(j *model.RunnerJob) *JobView {
	r := j.Result
	if r == nil {
		r = map[string]string{}
	}
	v := &JobView{Key: store.JobKey(j.CallerID, j.ID), ID: j.ID, CallerID: j.CallerID, ContextID: j.ContextID,
		Name: j.Name, FlowID: j.FlowID, Type: j.ScriptType, Script: j.Script, Status: string(j.Status),
		State: string(j.Status), LateResult: j.LateResult(),
		Result: r, Error: j.Error, Attempt: j.Attempt, Retries: j.Retries, Timeout: j.Timeout,
		Runner: j.Runner, EnvVars: j.EnvVars, CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt,
		TraceID: j.TraceID()}
	if at, ok := store.ParseRunAt(j.Extra[store.RunAtField]); ok {
		v.RunAt = float64(at.UnixMilli()) / 1000
	}
	if since, away := j.Unreachable(); away {
		v.State, v.UnreachableSince = model.StateUnknown, since.Unix()
	}
	v.IdempotencyKey, v.DuplicateOf = j.IdempotencyKey(), j.DuplicateOf()
	v.KeyedParams = keyedOf(j)
	return v
}

// ContextView is a context as the API shows it.
type ContextView struct {
	ID        uint64   `json:"id"`
	Name      string   `json:"name,omitempty"`
	Admins    []uint64 `json:"admins"`
	Readers   []uint64 `json:"readers"`
	Executors []uint64 `json:"executors"`
	// Isolation and Network are the admin's containment settings
	// (context.set; DESIGN §5): isolation host or contained, network none
	// or host; absent, the runner's configuration applies.
	Isolation string `json:"isolation,omitempty"`
	Network   string `json:"network,omitempty"`
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}

func contextView(c *model.Context) *ContextView {
	return &ContextView{ID: c.ID, Name: c.Name, Admins: nz(c.Admins), Readers: nz(c.Readers),
		Executors: nz(c.Executors), Isolation: c.Isolation(), Network: c.Network(),
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
}

// ActorView is an actor as the API shows it.
type ActorView struct {
	ID        uint64   `json:"id"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address"`
	Self      bool     `json:"self,omitempty"`
	CreatedAt int64    `json:"created_at"`
}

func nz(v []uint64) []uint64 {
	if v == nil {
		return []uint64{}
	}
	return v
}

func nzs(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

func u64(v uint64) string { return strconv.FormatUint(v, 10) }
