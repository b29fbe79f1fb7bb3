package wire

// LoginView answers ui.login_token.
type LoginView struct {
	Token     string `json:"token"`
	ExpiresAt int64  `json:"expires_at"`    // unix s; the token works once, until then
	URL       string `json:"url,omitempty"` // the dashboard on the TCP API, logging in with the token
	Note      string `json:"note,omitempty"`
}

// ContextStats answers ui.stats: one context at a glance.
type ContextStats struct {
	Context  uint64           `json:"context"`
	Jobs     int              `json:"jobs"`
	Counts   map[string]int   `json:"counts"`   // jobs by status
	Queues   map[string]int64 `json:"queues"`   // jobs waiting, by script type
	Rates    []RateBucket     `json:"rates"`    // the last hour by minute, oldest first
	Failures []FailureView    `json:"failures"` // the newest failed jobs, at most MaxFailures
}

// RateBucket counts the jobs of one minute: created, and ended (by when
// they last changed) finished or failed.
type RateBucket struct {
	At       int64 `json:"at"` // the minute's start, unix s
	Created  int   `json:"created"`
	Finished int   `json:"finished"`
	Failed   int   `json:"failed"`
}

// FailureView is a failed job in ui.stats.
type FailureView struct {
	Key       string `json:"key"`
	Name      string `json:"name,omitempty"`
	Type      string `json:"script_type"`
	FlowID    uint64 `json:"flow_id,omitempty"`
	Error     string `json:"error"`
	UpdatedAt int64  `json:"updated_at"`
}

// MaxFailures bounds ui.stats's failures.
const MaxFailures = 10

// StatsParams are ui.stats's.
type StatsParams struct {
	Context uint64 `json:"context"`
}

// DeadLetterRef names a context's dead letters by the key they record.
type DeadLetterRef struct {
	Context uint64 `json:"context"`
	Key     string `json:"key"`
}

// DeadLetterDeleted answers deadletter.delete.
type DeadLetterDeleted struct {
	Deleted int64 `json:"deleted"` // entries removed; 0 when the key had none
}

// DeadLetterRetried answers deadletter.retry: what was put back, and, for
// a job, the new attempt.
type DeadLetterRetried struct {
	Key     string   `json:"key"`
	Kind    string   `json:"kind"` // job or message
	Queue   string   `json:"queue"`
	Job     *JobView `json:"job,omitempty"`
	Deleted int64    `json:"deleted,omitempty"` // a job's dead-letter entries removed (a message's always are)
}

// DeadLetter is one entry of a context's dead_letter list, as
// deadletter.list shows it.
type DeadLetter struct {
	Key    string `json:"key"`
	Queue  string `json:"queue,omitempty"`
	Reason string `json:"reason"`
	Runner string `json:"runner,omitempty"`
	At     int64  `json:"at"`
	// Class is why, in a word: invalid (the default), unusable or
	// failures; hyphae_dead_letters_total's reason.
	Class string `json:"class,omitempty"`
}
