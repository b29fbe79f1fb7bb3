package model

import "errors"

var (
	errUnknownEnum = errors.New("unknown value")
	errNegative    = errors.New("must not be negative")
)

// Flow is a DAG of jobs run by a supervisor. Stored as flow:<id>.
type Flow struct {
	ID        uint64
	CallerID  uint64
	ContextID uint64
	Name      string // +
	Jobs      []uint64
	EnvVars   map[string]string
	Result    map[string]string
	Status    FlowStatus
	CreatedAt int64
	UpdatedAt int64
	Extra     Hash
}

// ToHash encodes f as a Redis hash.
func (f *Flow) ToHash() Hash {
	w := newWriter(f.Extra)
	w.u64("id", f.ID)
	w.u64("caller_id", f.CallerID)
	w.u64("context_id", f.ContextID)
	w.str("name", f.Name)
	w.ids("jobs", f.Jobs)
	w.strMap("env_vars", f.EnvVars)
	w.strMap("result", f.Result)
	w.str("status", string(f.Status))
	w.i64("created_at", f.CreatedAt)
	w.i64("updated_at", f.UpdatedAt)
	return w.h
}

// FlowFromHash decodes a Flow.
func FlowFromHash(key string, h Hash) (*Flow, error) {
	r := newReader(key, h)
	f := &Flow{
		ID:        r.u64("id"),
		CallerID:  r.u64("caller_id"),
		ContextID: r.u64("context_id"),
		Name:      r.str("name"),
		Jobs:      r.ids("jobs"),
		EnvVars:   r.strMap("env_vars"),
		Result:    r.strMap("result"),
		Status:    FlowStatus(r.str("status")),
		CreatedAt: r.i64("created_at"),
		UpdatedAt: r.i64("updated_at"),
	}
	if f.Status != "" && !f.Status.Valid() {
		r.fail("status", string(f.Status), errUnknownEnum)
	}
	f.Extra = r.extra()
	return f, r.err
}

// Runner is a runner registered in a context. Stored as runner:<id>.
type Runner struct {
	ID          uint64
	Pubkey      string // peer ID of the agent that runs it
	Address     string
	Topic       string
	Local       bool
	ScriptTypes []string // +
	CreatedAt   int64
	UpdatedAt   int64
	Extra       Hash
}

// RunsHere reports whether the record names the agent whose peer ID is
// self: a local runner, or one whose pubkey is self.
func (rn *Runner) RunsHere(self string) bool { return rn.Local || rn.Pubkey == self }

// ToHash encodes r as a Redis hash.
func (rn *Runner) ToHash() Hash {
	w := newWriter(rn.Extra)
	w.u64("id", rn.ID)
	w.str("pubkey", rn.Pubkey)
	w.str("address", rn.Address)
	w.str("topic", rn.Topic)
	w.boolean("local", rn.Local)
	w.strList("script_types", rn.ScriptTypes)
	w.i64("created_at", rn.CreatedAt)
	w.i64("updated_at", rn.UpdatedAt)
	return w.h
}

// RunnerFromHash decodes a Runner.
func RunnerFromHash(key string, h Hash) (*Runner, error) {
	r := newReader(key, h)
	rn := &Runner{
		ID:          r.u64("id"),
		Pubkey:      r.str("pubkey"),
		Address:     r.str("address"),
		Topic:       r.str("topic"),
		Local:       r.boolean("local"),
		ScriptTypes: r.strList("script_types"),
		CreatedAt:   r.i64("created_at"),
		UpdatedAt:   r.i64("updated_at"),
	}
	rn.Extra = r.extra()
	return rn, r.err
}
