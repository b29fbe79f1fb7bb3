package wire

// ContextView is a context as the API shows it.
type ContextView struct {
	ID        uint64   `json:"id"`
	Name      string   `json:"name,omitempty"`
	Admins    []uint64 `json:"admins"`
	Readers   []uint64 `json:"readers"`
	Executors []uint64 `json:"executors"`
	// Isolation and Network are the admin's containment settings
	// (context.set; docs/design.md, "Contained jobs"): isolation host or contained, network none
	// or host; absent, the runner's configuration applies.
	Isolation string `json:"isolation,omitempty"`
	Network   string `json:"network,omitempty"`
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}

// ActorView is an actor as the API shows it.
type ActorView struct {
	ID        uint64   `json:"id"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address"`
	Self      bool     `json:"self,omitempty"`
	CreatedAt int64    `json:"created_at"`
}

// GrantParams grants or revokes a role.
type GrantParams struct {
	ID    uint64 `json:"id"`
	Actor string `json:"actor"`
	Role  string `json:"role"`
}

// ContextSetParams changes a context's containment settings (context.set).
// A field left out keeps its value; "" removes it, and the runner's
// configuration (isolation) or each job's own setting (network) applies.
type ContextSetParams struct {
	ID uint64 `json:"id"`
	// Isolation "host": jobs from other actors run on the host,
	// uncontained; "contained": this agent's own jobs run contained too.
	Isolation *string `json:"isolation,omitempty"`
	// Network "none": every job of the context runs contained, with only
	// loopback; "host": each job's own setting (as "").
	Network *string `json:"network,omitempty"`
}

// ActorRef names an actor by peer ID (pubkey) or local numeric id.
type ActorRef struct {
	Actor string `json:"actor"`
}

// RunnerParams registers a runner in a context.
type RunnerParams struct {
	Context     uint64   `json:"context"`
	Pubkey      string   `json:"pubkey"` // peer ID of the agent that runs it
	Address     string   `json:"address,omitempty"`
	Topic       string   `json:"topic,omitempty"`
	Local       bool     `json:"local,omitempty"`
	ScriptTypes []string `json:"script_types,omitempty"`
}

// RunnerView is a runner as the API shows it.
type RunnerView struct {
	ID          uint64   `json:"id"`
	Ref         string   `json:"ref"` // runner:<id>, usable as a job's runner
	Pubkey      string   `json:"pubkey"`
	Address     string   `json:"address"`
	Topic       string   `json:"topic"`
	Local       bool     `json:"local"`
	ScriptTypes []string `json:"script_types"`
}

// MessageView is a message as the API shows it.
type MessageView struct {
	Key     string            `json:"key"`
	Fields  map[string]string `json:"fields"`
	Status  string            `json:"status"`
	Type    string            `json:"message_type"`
	Context uint64            `json:"context_id"`
	TraceID string            `json:"trace_id,omitempty"` // its W3C traceparent
}
