package cli

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// jobWithTimeline is `job status --json`: the job (job.load) with its
// timeline and attempts (job.timeline).
type jobWithTimeline struct {
	wire.JobView
	Timeline []wire.TimelineEvent `json:"timeline"`
	Attempts []wire.AttemptView   `json:"attempts"`
}

// jobTimeline reads a job's timeline; empty when the agent cannot say
// (an agent without job.timeline): job status shows the rest.
func jobTimeline(ctx context.Context, g *globals, ctxID uint64, key string) *wire.TimelineView {
	var tl wire.TimelineView
	if err := g.call(ctx, "job.timeline", map[string]any{"context": ctxID, "key": key}, &tl); err != nil {
		return &wire.TimelineView{Key: key, Timeline: []wire.TimelineEvent{}, Attempts: []wire.AttemptView{}}
	}
	return &tl
}

// printTimeline prints a job's attempts (a table) and its timeline (a line
// per move), after the rest of job status; nothing when it has none (a
// job written straight into Redis that never moved).
func printTimeline(w io.Writer, tl *wire.TimelineView) {
	if len(tl.Timeline) == 0 {
		return
	}
	fmt.Fprintln(w, "Attempts:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  #\tSTATUS\tQUEUED\tSTARTED\tENDED\tDURATION\tRUNNER\tERROR")
	for _, a := range tl.Attempts {
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Attempt, a.Status, clock(a.QueuedMS), clock(a.StartedMS),
			clock(a.EndedMS), msDuration(a.DurationMS, a.EndedMS), orDash(attemptWhere(a)), oneLine(a.Error, 60))
	}
	tw.Flush()
	fmt.Fprintln(w, "Timeline:")
	for _, e := range tl.Timeline {
		detail := ""
		if e.Detail != "" {
			detail = "  " + oneLine(e.Detail, 100)
		}
		fmt.Fprintf(w, "  %s  %-12s attempt %d%s\n", time.UnixMilli(e.AtMS).Format("2006-01-02 15:04:05.000"),
			e.Event, max(e.Attempt, 1), detail) // attempt 0: before the first dispatch, part of attempt 1
	}
}

// attemptWhere is where an attempt ran: its runner, or the agent it was
// sent to.
func attemptWhere(a wire.AttemptView) string {
	if a.Runner != "" {
		return shortRunner(a.Runner)
	}
	if a.SentTo != "" {
		return "sent to " + shortRunner(a.SentTo)
	}
	return ""
}

// clock is a time of day with ms (local), "-" for 0.
func clock(ms int64) string {
	if ms == 0 {
		return "-"
	}
	return time.UnixMilli(ms).Format("15:04:05.000")
}

// msDuration is d (ms) for an attempt that ended, "-" otherwise.
func msDuration(d, ended int64) string {
	if ended == 0 {
		return "-"
	}
	return (time.Duration(d) * time.Millisecond).String()
}
