package wire

// JobPageParams are job.page's: a context's jobs filtered and paged on
// the agent, so a client of a context with many jobs reads one page.
type JobPageParams struct {
	Context uint64 `json:"context"`
	Status  string `json:"status,omitempty"` // only jobs in this status
	Type    string `json:"type,omitempty"`   // only jobs of this script type
	Flow    uint64 `json:"flow,omitempty"`   // only the jobs of this flow
	Name    string `json:"name,omitempty"`   // only jobs whose name or key contains this
	Since   int64  `json:"since,omitempty"`  // only jobs created at or after (unix s)
	Offset  int    `json:"offset,omitempty"` // skip this many, newest first
	Limit   int    `json:"limit,omitempty"`  // page size: default 50, at most MaxJobPage
}

// JobPage answers job.page.
type JobPage struct {
	Jobs   []*JobView `json:"jobs"`
	Total  int        `json:"total"` // jobs that match the filter
	Offset int        `json:"offset"`
	Limit  int        `json:"limit"`
	// Counts are the jobs by status that match every filter but status
	// (the tabs a jobs view shows beside the list).
	Counts map[string]int `json:"counts"`
}

// MaxJobPage bounds a page of job.page; DefaultJobPage is its default.
const (
	MaxJobPage     = 500
	DefaultJobPage = 50
)
