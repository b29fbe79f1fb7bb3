package model

import "strings"

// StateCancelled is how views show a job its flow cancelled before it
// ran: the job hash keeps its seed status, error (docs/design.md, job
// status), with an error that begins CancelledPrefix; the flow shows its
// node cancelled, and every view of the job says so too.
const StateCancelled = "cancelled"

// CancelledPrefix begins the error of a job its flow cancelled.
const CancelledPrefix = "cancelled: "

// Cancelled reports whether j ended error because its flow cancelled it.
func (j *RunnerJob) Cancelled() bool {
	return j.Status == JobError && strings.HasPrefix(j.Error, CancelledPrefix)
}
