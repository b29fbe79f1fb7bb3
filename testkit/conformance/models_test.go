package conformance

// The seed 001 models as a client types them (u32 ids and timestamps, u8
// retries, lists and maps as JSON lists and objects).

type Actor struct {
	ID        uint32   `json:"id"`
	Pubkey    string   `json:"pubkey"`
	Address   []string `json:"address"`
	CreatedAt uint32   `json:"created_at"`
	UpdatedAt uint32   `json:"updated_at"`
}

type Context struct {
	ID        uint32   `json:"id"`
	Admins    []uint32 `json:"admins"`
	Readers   []uint32 `json:"readers"`
	Executors []uint32 `json:"executors"`
	CreatedAt uint32   `json:"created_at"`
	UpdatedAt uint32   `json:"updated_at"`
}

type Flow struct {
	ID        uint32            `json:"id"`
	CallerID  uint32            `json:"caller_id"`
	ContextID uint32            `json:"context_id"`
	Jobs      []uint32          `json:"jobs"`
	EnvVars   map[string]string `json:"env_vars"`
	Result    map[string]string `json:"result"`
	CreatedAt uint32            `json:"created_at"`
	UpdatedAt uint32            `json:"updated_at"`
	Status    string            `json:"status"`
}

type Message struct {
	ID                uint32   `json:"id"`
	CallerID          uint32   `json:"caller_id"`
	ContextID         uint32   `json:"context_id"`
	Message           string   `json:"message"`
	MessageType       string   `json:"message_type"`
	MessageFormatType string   `json:"message_format_type"`
	Timeout           uint32   `json:"timeout"`
	TimeoutAck        uint32   `json:"timeout_ack"`
	TimeoutResult     uint32   `json:"timeout_result"`
	Job               []Job    `json:"job"`
	Logs              []string `json:"logs"`
	CreatedAt         uint32   `json:"created_at"`
	UpdatedAt         uint32   `json:"updated_at"`
	Status            string   `json:"status"`
}

type Runner struct {
	ID        uint32 `json:"id"`
	Pubkey    string `json:"pubkey"`
	Address   string `json:"address"`
	Topic     string `json:"topic"`
	Local     bool   `json:"local"`
	CreatedAt uint32 `json:"created_at"`
	UpdatedAt uint32 `json:"updated_at"`
}

type Job struct {
	ID            uint32            `json:"id"`
	CallerID      uint32            `json:"caller_id"`
	ContextID     uint32            `json:"context_id"`
	Script        string            `json:"script"`
	ScriptType    string            `json:"script_type"`
	Timeout       uint32            `json:"timeout"`
	Retries       uint8             `json:"retries"`
	EnvVars       map[string]string `json:"env_vars"`
	Result        map[string]string `json:"result"`
	Prerequisites []string          `json:"prerequisites"`
	Dependends    []uint32          `json:"dependends"`
	CreatedAt     uint32            `json:"created_at"`
	UpdatedAt     uint32            `json:"updated_at"`
	Status        string            `json:"status"`
}

// DAG is flow.dag's answer (seed 002: nodes, edges, roots, leaves,
// levels, node states).
type DAG struct {
	Nodes map[string]struct {
		ID            uint32   `json:"id"`
		Depends       []uint32 `json:"depends"`
		NodeStatus    string   `json:"node_status"`
		SupervisorURL *string  `json:"supervisor_url"`
	} `json:"nodes"`
	Edges []struct {
		From uint32 `json:"from"`
		To   uint32 `json:"to"`
	} `json:"edges"`
	Roots  []uint32   `json:"roots"`
	Leaves []uint32   `json:"leaves"`
	Levels [][]uint32 `json:"levels"`
}
