package wire

// SeedJobIn is a RunnerJob given to job.create (or inside a message).
type SeedJobIn struct {
	ID            uint64            `json:"id,omitempty"`
	CallerID      uint64            `json:"caller_id,omitempty"`
	ContextID     uint64            `json:"context_id,omitempty"`
	Script        string            `json:"script"`
	ScriptType    string            `json:"script_type,omitempty"`
	Executor      string            `json:"executor,omitempty"` // seed 002's name for script_type
	Timeout       int64             `json:"timeout,omitempty"`
	Retries       int64             `json:"retries,omitempty"`
	EnvVars       map[string]string `json:"env_vars,omitempty"`
	Result        map[string]string `json:"result,omitempty"`
	Prerequisites []string          `json:"prerequisites,omitempty"`
	Dependends    []uint64          `json:"dependends,omitempty"`
	Status        string            `json:"status,omitempty"`
	CreatedAt     int64             `json:"created_at,omitempty"`
	UpdatedAt     int64             `json:"updated_at,omitempty"`
	Name          string            `json:"name,omitempty"`
	Runner        string            `json:"runner,omitempty"`
	Error         string            `json:"error,omitempty"`
	Attempt       int64             `json:"attempt,omitempty"`
}

// SeedFlowIn is a Flow given to flow.create: jobs are ids of jobs of the
// flow's caller in its context.
type SeedFlowIn struct {
	ID        uint64            `json:"id,omitempty"`
	CallerID  uint64            `json:"caller_id,omitempty"`
	ContextID uint64            `json:"context_id,omitempty"`
	Jobs      []uint64          `json:"jobs"`
	EnvVars   map[string]string `json:"env_vars,omitempty"`
	Result    map[string]string `json:"result,omitempty"`
	Status    string            `json:"status,omitempty"`
	CreatedAt int64             `json:"created_at,omitempty"`
	UpdatedAt int64             `json:"updated_at,omitempty"`
	Name      string            `json:"name,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// SeedMessageIn is a Message given to message.create.
type SeedMessageIn struct {
	ID                uint64       `json:"id,omitempty"`
	CallerID          uint64       `json:"caller_id,omitempty"`
	ContextID         uint64       `json:"context_id,omitempty"`
	Message           string       `json:"message,omitempty"`
	MessageType       string       `json:"message_type"`
	MessageFormatType string       `json:"message_format_type,omitempty"`
	Timeout           int64        `json:"timeout,omitempty"`
	TimeoutAck        int64        `json:"timeout_ack,omitempty"`
	TimeoutResult     int64        `json:"timeout_result,omitempty"`
	Job               []*SeedJobIn `json:"job,omitempty"`
	Logs              []string     `json:"logs,omitempty"`
	Status            string       `json:"status,omitempty"`
	CreatedAt         int64        `json:"created_at,omitempty"`
	UpdatedAt         int64        `json:"updated_at,omitempty"`
	Dst               string       `json:"dst,omitempty"`
	Error             string       `json:"error,omitempty"`
}

// SeedRunnerIn is a Runner given to runner.create. Secret (seed 002) is
// kept in the record and never shown.
type SeedRunnerIn struct {
	ID          uint64   `json:"id,omitempty"`
	Pubkey      string   `json:"pubkey,omitempty"`
	Address     string   `json:"address,omitempty"`
	Topic       string   `json:"topic,omitempty"`
	Local       bool     `json:"local,omitempty"`
	ScriptTypes []string `json:"script_types,omitempty"`
	Type        string   `json:"type,omitempty"` // seed 000 RunnerType: v, python, osis or rust
	Secret      string   `json:"secret,omitempty"`
	CreatedAt   int64    `json:"created_at,omitempty"`
	UpdatedAt   int64    `json:"updated_at,omitempty"`
}

// SeedActorIn is an Actor given to actor.create: pubkey is a peer ID or a
// hex ed25519 public key.
type SeedActorIn struct {
	ID        uint64   `json:"id,omitempty"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address,omitempty"`
	CreatedAt int64    `json:"created_at,omitempty"`
	UpdatedAt int64    `json:"updated_at,omitempty"`
}

// SeedContextIn is a Context given to context.create.
type SeedContextIn struct {
	ID        uint64   `json:"id,omitempty"`
	Name      string   `json:"name,omitempty"`
	Admins    []uint64 `json:"admins,omitempty"`
	Readers   []uint64 `json:"readers,omitempty"`
	Executors []uint64 `json:"executors,omitempty"`
	CreatedAt int64    `json:"created_at,omitempty"`
	UpdatedAt int64    `json:"updated_at,omitempty"`
}

// SeedJobParams is job.create's seed shape.
type SeedJobParams struct {
	ContextID uint64    `json:"context_id"`
	Job       SeedJobIn `json:"job"`
}

// SeedJobRunParams is job.run as the seed coordinator sends it to a
// supervisor: the job (its context_id names the context) and the
// runner's secret, which this agent does not check (the API token or the
// socket's permissions guard the call).
type SeedJobRunParams struct {
	Job    SeedJobIn `json:"job"`
	Secret string    `json:"secret,omitempty"`
}

// SeedFlowParams is flow.create's seed shape.
type SeedFlowParams struct {
	ContextID uint64     `json:"context_id"`
	Flow      SeedFlowIn `json:"flow"`
}

// SeedMessageParams is message.create's seed shape: the message lives in
// context context_id (this agent's); its own context_id names the target
// context (the same one when left out).
type SeedMessageParams struct {
	ContextID uint64        `json:"context_id"`
	Message   SeedMessageIn `json:"message"`
}

// SeedRunnerParams is runner.create's seed shape.
type SeedRunnerParams struct {
	ContextID uint64       `json:"context_id"`
	Runner    SeedRunnerIn `json:"runner"`
}
