package wire

// SeedJob is a RunnerJob (seed 001) as the seed's clients read it.
type SeedJob struct {
	ID            uint64            `json:"id"`
	CallerID      uint64            `json:"caller_id"`
	ContextID     uint64            `json:"context_id"`
	Script        string            `json:"script"`
	ScriptType    string            `json:"script_type"`
	Timeout       int64             `json:"timeout"`
	Retries       int64             `json:"retries"`
	EnvVars       map[string]string `json:"env_vars"`
	Result        map[string]string `json:"result"`
	Prerequisites []string          `json:"prerequisites"`
	Dependends    []uint64          `json:"dependends"`
	Status        string            `json:"status"`
	CreatedAt     int64             `json:"created_at"`
	UpdatedAt     int64             `json:"updated_at"`
	Name          string            `json:"name,omitempty"`
	Runner        string            `json:"runner,omitempty"`
	Error         string            `json:"error,omitempty"`
	Attempt       int64             `json:"attempt,omitempty"`
}

// SeedFlow is a Flow (seed 001): jobs is the list of job ids.
type SeedFlow struct {
	ID        uint64            `json:"id"`
	CallerID  uint64            `json:"caller_id"`
	ContextID uint64            `json:"context_id"`
	Jobs      []uint64          `json:"jobs"`
	EnvVars   map[string]string `json:"env_vars"`
	Result    map[string]string `json:"result"`
	Status    string            `json:"status"`
	CreatedAt int64             `json:"created_at"`
	UpdatedAt int64             `json:"updated_at"`
	Name      string            `json:"name,omitempty"`
	Error     string            `json:"error,omitempty"`
}

// SeedMessage is a Message (seed 001) with its jobs as SeedJob objects.
type SeedMessage struct {
	ID                uint64     `json:"id"`
	CallerID          uint64     `json:"caller_id"`
	ContextID         uint64     `json:"context_id"`
	Message           string     `json:"message"`
	MessageType       string     `json:"message_type"`
	MessageFormatType string     `json:"message_format_type"`
	Timeout           int64      `json:"timeout"`
	TimeoutAck        int64      `json:"timeout_ack"`
	TimeoutResult     int64      `json:"timeout_result"`
	Job               []*SeedJob `json:"job"`
	Logs              []string   `json:"logs"`
	Status            string     `json:"status"`
	CreatedAt         int64      `json:"created_at"`
	UpdatedAt         int64      `json:"updated_at"`
	Dst               string     `json:"dst,omitempty"`
	Error             string     `json:"error,omitempty"`
}

// SeedRunner is a Runner (seed 001) with the script types it declares.
type SeedRunner struct {
	ID          uint64   `json:"id"`
	Pubkey      string   `json:"pubkey"`
	Address     string   `json:"address"`
	Topic       string   `json:"topic"`
	Local       bool     `json:"local"`
	CreatedAt   int64    `json:"created_at"`
	UpdatedAt   int64    `json:"updated_at"`
	ScriptTypes []string `json:"script_types"`
	Type        string   `json:"type,omitempty"` // seed 000 RunnerType, when runner.create gave one
}

// SeedActor is an Actor (seed 001).
type SeedActor struct {
	ID        uint64   `json:"id"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address"`
	CreatedAt int64    `json:"created_at"`
	UpdatedAt int64    `json:"updated_at"`
}

// SeedRef names an object of a context the seed's way: {context_id, id}.
type SeedRef struct {
	ContextID uint64 `json:"context_id"`
	ID        uint64 `json:"id"`
}

// SeedCallerRef names a job or message the seed's way: {context_id,
// caller_id, id} (its key is job:<caller_id>:<id>).
type SeedCallerRef struct {
	ContextID uint64 `json:"context_id"`
	CallerID  uint64 `json:"caller_id"`
	ID        uint64 `json:"id"`
}
