package wire

// ScheduleAddParams are flow.schedule.add's: a flow file with a
// `schedule:`, as flow.create takes one.
type ScheduleAddParams struct {
	FileContent string `json:"file_content"`
	FileName    string `json:"file_name,omitempty"`
	BaseDir     string `json:"base_dir,omitempty"`
	Context     uint64 `json:"context,omitempty"`
}

// ScheduleRef names a schedule: its flow's name in a context.
type ScheduleRef struct {
	Context uint64 `json:"context"`
	Name    string `json:"name"`
}

// ScheduleListParams are flow.schedule.list's.
type ScheduleListParams struct {
	Context uint64 `json:"context,omitempty"` // 0: every context of this agent
}

// ScheduleView is a flow schedule as flow.schedule.* show it. Times are
// unix seconds.
type ScheduleView struct {
	Name      string `json:"name"`
	Context   uint64 `json:"context"`
	Cron      string `json:"cron"`
	TimeZone  string `json:"timezone,omitempty"`
	CatchUp   string `json:"catch_up"`
	Overlap   string `json:"overlap"`
	Paused    bool   `json:"paused"`
	NextTick  int64  `json:"next_tick,omitempty"` // when it fires next (none while paused)
	LastTick  int64  `json:"last_tick,omitempty"` // the last tick handled (run or skipped)
	LastFlow  uint64 `json:"last_flow,omitempty"` // the flow id of the last run
	Runs      int64  `json:"runs"`
	Skipped   int64  `json:"skipped"` // ticks missed or skipped for an overlap
	CreatedAt int64  `json:"created_at"`
	UpdatedAt int64  `json:"updated_at"`
}
