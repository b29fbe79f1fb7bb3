package wire

// LogsView answers job.logs.
type LogsView struct {
	Lines  []string `json:"lines"`
	Next   int64    `json:"next"`
	Status string   `json:"status"`
	Runner string   `json:"runner,omitempty"` // the agent a job sent away went to
	// Source says where the lines of a job sent away come from: "runner"
	// (its runner's agent, which holds the whole log: indexes are its) or
	// "result" (the last lines its result brought home; see Note).
	Source string `json:"source,omitempty"`
	More   bool   `json:"more,omitempty"` // more lines wait after Next: ask again at once
	Note   string `json:"note,omitempty"` // why the runner's agent was not read
	// ResultLines is how many last lines a result brings home (with Note).
	ResultLines int `json:"result_lines,omitempty"`
	// Entries are Lines with their time and stream, when asked for (meta).
	Entries []LogEntry `json:"entries,omitempty"`
}

// LogEntry is a log line with when it was written (RFC 3339, UTC, ms;
// empty when not known) and its stream: stdout, stderr, agent (the
// agent's own notes) or empty when not known (a line written by a client
// straight into Redis, or brought home by a result).
type LogEntry struct {
	TS     string `json:"ts,omitempty"`
	Stream string `json:"stream,omitempty"`
	Line   string `json:"line"`
}

// TimelineView answers job.timeline: a job's moves, oldest first, and
// its attempts drawn from them.
type TimelineView struct {
	Key      string          `json:"key"`
	Timeline []TimelineEvent `json:"timeline"`
	Attempts []AttemptView   `json:"attempts"`
}

// TimelineEvent is one move of a job (store.TimelineEntry): its time
// (RFC 3339, UTC, ms), the event (a status it entered, or created, retry,
// sent, unreachable, reachable), the attempt and a detail (the runner
// that started it, the peer it was sent to, the error).
type TimelineEvent struct {
	At      string `json:"at"`
	AtMS    int64  `json:"at_ms"`
	Event   string `json:"event"`
	Attempt int64  `json:"attempt,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// AttemptView is one attempt of a job: when it was queued, started and
// ended (unix ms, 0: not yet or not known), how it ended, where it ran.
type AttemptView struct {
	Attempt    int64  `json:"attempt"`
	Status     string `json:"status"`
	QueuedMS   int64  `json:"queued_ms,omitempty"`
	StartedMS  int64  `json:"started_ms,omitempty"`
	EndedMS    int64  `json:"ended_ms,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"` // started to ended
	Runner     string `json:"runner,omitempty"`
	SentTo     string `json:"sent_to,omitempty"`
	Error      string `json:"error,omitempty"`
}
