package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// jobEnded says whether a job is in an end state.
func jobEnded(j *wire.JobView) bool {
	return j.Status == "finished" || j.Status == "error"
}

// jobDuration is how long a job took: from its creation to its last
// change when it ended, to now while it has not. The job record keeps no
// start time, so a queued wait is part of it.
func jobDuration(j *wire.JobView, now time.Time) time.Duration {
	if j.CreatedAt == 0 {
		return 0
	}
	end := now
	if jobEnded(j) && j.UpdatedAt >= j.CreatedAt {
		end = time.Unix(j.UpdatedAt, 0)
	}
	return end.Sub(time.Unix(j.CreatedAt, 0)).Round(time.Second)
}

// attemptOf is "2/3": the attempt and how many the job may have.
func attemptOf(j *wire.JobView) string {
	a := max(j.Attempt, 1)
	return fmt.Sprintf("%d/%d", a, j.Retries+1)
}

// orDash is s, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// flowOf is the flow a job belongs to, "-" for none.
func flowOf(j *wire.JobView) string {
	if j.FlowID == 0 {
		return "-"
	}
	return strconv.FormatUint(j.FlowID, 10)
}

// printJobDetail prints what job status shows between printJob's first
// line and the rest: name, flow, type, attempt, runner, times, duration.
func printJobDetail(w io.Writer, j *wire.JobView, now time.Time) {
	const at = "2006-01-02 15:04:05"
	if j.Name != "" {
		fmt.Fprintf(w, "  name:     %s\n", j.Name)
	}
	if j.FlowID != 0 {
		fmt.Fprintf(w, "  flow:     %d (hyphae flow status %d -c %d)\n", j.FlowID, j.FlowID, j.ContextID)
	}
	fmt.Fprintf(w, "  type:     %s\n", j.Type)
	fmt.Fprintf(w, "  attempt:  %s\n", attemptOf(j))
	if j.Runner == "" { // else printJobBody names it
		fmt.Fprintln(w, "  runner:   this agent")
	}
	fmt.Fprintf(w, "  created:  %s\n", time.Unix(j.CreatedAt, 0).Format(at))
	label := "updated: "
	if jobEnded(j) {
		label = "ended:   "
	}
	fmt.Fprintf(w, "  %s %s\n", label, time.Unix(j.UpdatedAt, 0).Format(at))
	fmt.Fprintf(w, "  duration: %s (from creation)\n", jobDuration(j, now))
}
