package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newJobStatus(g *globals) *cobra.Command {
	var asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "status [CONTEXT] JOB",
		Short: "Show a job: status, attempt, result, error",
		Long:  "Show a job: status, attempt, times, runner, result, error, its attempts and timeline.\n\n" + jobArgHelp,
		Example: `  hyphae job status -c 1 job:1:42
  hyphae job status -c 1 42          # job 42 of context 1
  HYPHAE_CONTEXT=1 hyphae job status 42
  hyphae job status 1 job:1:42       # the older form, context first`,
		Args: ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args) // job_ref.go
			if err != nil {
				return err
			}
			var j wire.JobView
			if err := g.call(cmd.Context(), "job.load", map[string]any{"context": id, "key": key}, &j); err != nil {
				return err
			}
			tl := jobTimeline(cmd.Context(), g, id, key) // job_timeline.go
			if asJSON {
				return printJSON(cmd.OutOrStdout(), jobWithTimeline{JobView: j, Timeline: tl.Timeline, Attempts: tl.Attempts})
			}
			printJobHead(cmd.OutOrStdout(), &j)
			printJobDetail(cmd.OutOrStdout(), &j, time.Now())
			printJobTrace(cmd.OutOrStdout(), &j)
			printJobBody(cmd.OutOrStdout(), &j, 0)
			printTimeline(cmd.OutOrStdout(), tl)
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printJobTrace prints the job's trace id (a W3C traceparent): the one
// its log lines carry on every agent it went through, and its spans.
func printJobTrace(w io.Writer, j *wire.JobView) {
	if j.TraceID != "" {
		fmt.Fprintf(w, "  trace id: %s\n", j.TraceID)
	}
}

// printJobTable prints jobs a line each, under a header.
func printJobTable(w io.Writer, js []wire.JobView) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tNAME\tTYPE\tSTATUS\tATTEMPT\tFLOW\tRUNNER\tCREATED\tDURATION\tERROR")
	now := time.Now()
	for _, j := range js {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j.Key, oneLine(orDash(j.Name), 24), j.Type,
			shownState(&j), attemptOf(&j), flowOf(&j), shortRunner(j.Runner),
			time.Unix(j.CreatedAt, 0).Format("2006-01-02 15:04:05"), jobDuration(&j, now), oneLine(j.Error, 80))
	}
	tw.Flush()
}

// shownState is the job's status, "cancelled (error)" for a job its flow
// cancelled (the word the flow shows), or "unknown (STATUS)" while the
// agent it went to is unreachable: it may be running or done there.
func shownState(j *wire.JobView) string {
	if j.State == model.StateUnknown || j.State == model.StateCancelled {
		return j.State + " (" + j.Status + ")"
	}
	return j.Status
}

// printReach prints why a job is unknown (its agent unreachable since),
// and a result that came after the job was given up on as lost.
func printReach(w io.Writer, j *wire.JobView) {
	if j.State == model.StateUnknown {
		since := time.Unix(j.UnreachableSince, 0)
		fmt.Fprintf(w, "  unknown: its runner has been unreachable since %s (%v); its result is taken when it returns\n",
			since.Format("2006-01-02 15:04:05"), time.Since(since).Round(time.Second))
	}
	if r := j.LateResult; r != nil {
		fmt.Fprintf(w, "  late result: %s from %s (attempt %d) at %s, after the job was given up on; kept, nothing changed\n",
			r.Status, r.From, r.Attempt, time.Unix(r.At, 0).Format("2006-01-02 15:04:05"))
		for _, k := range slices.Sorted(maps.Keys(r.Result)) {
			fmt.Fprintf(w, "    %s = %s\n", k, oneLine(r.Result[k], 200))
		}
	}
}

// shortRunner shortens a peer ID to its head and tail, as Nomad shortens
// node IDs; "-" for none.
func shortRunner(r string) string {
	switch {
	case r == "":
		return "-"
	case len(r) > 20 && strings.HasPrefix(r, "12D3KooW"):
		return r[:12] + "…" + r[len(r)-6:]
	}
	return r
}

// oneLine is s on one line, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newJobStop(g *globals) *cobra.Command {
	var ctxFlag uint64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "stop [CONTEXT] JOB",
		Short: "Stop a running or queued job (it ends error: stopped)",
		Long: `Stop a running or queued job; it ends with status error, "stopped".

A job sent to another agent is stopped there: the stop travels as the job
did. If that agent has not acknowledged the job yet (it may be away), the
job also ends here at once, and its message is withdrawn instead of being
sent again.

` + jobArgHelp,
		Example: "  hyphae job stop -c 1 job:1:42\n  hyphae job stop -c 1 42",
		Args:    ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args)
			if err != nil {
				return err
			}
			var out map[string]string
			if err := g.call(cmd.Context(), "job.stop", map[string]any{"context": id, "key": key}, &out); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), out)
			}
			if out["where"] == "outbox" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s stopped: no agent had taken it yet, so it will not be sent\n", key)
				return nil
			}
			if out["withdrawn"] == "true" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s stopped: %s had not acknowledged it, so it will not be sent again (a stop goes to it too)\n", key, out["where"])
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stop requested for %s\n", key)
			return nil
		},
	}
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the agent's answer as JSON (where, withdrawn)")
	return cmd
}
