package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/bridge"
)

func newJobStatus(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "status CONTEXT JOB_KEY",
		Short:   "Show a job: status, attempt, result, error",
		Example: "  hyphae job status 1 job:1:42",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseCtx(args[0])
			if err != nil {
				return err
			}
			var j node.JobView
			if err := g.call(cmd.Context(), "job.load", map[string]any{"context": id, "key": args[1]}, &j); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), j)
			}
			printJob(cmd.OutOrStdout(), &j, 0)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newJobList(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list CONTEXT",
		Short: "List a context's jobs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseCtx(args[0])
			if err != nil {
				return err
			}
			var js []node.JobView
			if err := g.call(cmd.Context(), "job.list", map[string]any{"context": id}, &js); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), js)
			}
			for _, j := range js {
				fmt.Fprintf(cmd.OutOrStdout(), "%-16s %-8s %-10s %s\n", j.Key, j.Type, j.Status, j.Error)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newJobStop(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "stop CONTEXT JOB_KEY",
		Short: "Stop a running or queued job (it ends error: stopped)",
		Long: `Stop a running or queued job; it ends with status error, "stopped".

A job sent to another agent is stopped there: the stop travels as the job
did. If that agent has not acknowledged the job yet (it may be away), the
job also ends here at once, and its message is withdrawn instead of being
sent again.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseCtx(args[0])
			if err != nil {
				return err
			}
			var out map[string]string
			if err := g.call(cmd.Context(), "job.stop", map[string]any{"context": id, "key": args[1]}, &out); err != nil {
				return err
			}
			if out["where"] == "outbox" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s stopped: no agent had taken it yet, so it will not be sent\n", args[1])
				return nil
			}
			if out["withdrawn"] == "true" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s stopped: %s had not acknowledged it, so it will not be sent again (a stop goes to it too)\n", args[1], out["where"])
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stop requested for %s\n", args[1])
			return nil
		},
	}
}

func newJobLogs(g *globals) *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs CONTEXT JOB_KEY",
		Short: "Print a job's output lines; -f follows until the job ends",
		Long: `Print a job's output lines; -f follows until the job ends.

A job sent to another agent (job run --to PEER_ID) shows nothing here while it
runs there; its result brings the last 50 lines home, and they are shown
once it has ended. The whole log stays on the agent that ran it.`,
		Example: "  hyphae job logs 1 job:1:7 -f",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseCtx(args[0])
			if err != nil {
				return err
			}
			var from int64
			for first := true; ; first = false {
				var lv node.LogsView
				p := map[string]any{"context": id, "key": args[1], "from": from}
				if err := g.call(cmd.Context(), "job.logs", p, &lv); err != nil {
					return err
				}
				if first {
					noteIfSent(cmd.ErrOrStderr(), args[1], &lv)
				}
				for _, l := range lv.Lines {
					fmt.Fprintln(cmd.OutOrStdout(), l)
				}
				from = lv.Next
				if !follow || lv.Status == "finished" || lv.Status == "error" {
					return nil
				}
				select {
				case <-cmd.Context().Done():
					return nil
				case <-time.After(200 * time.Millisecond):
				}
			}
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing new lines until the job ends")
	return cmd
}

// noteIfSent tells the user, on w, when the job runs on another agent:
// its lines come only with its result, so that no lines (or a wait, with
// -f) are not taken for a fault.
func noteIfSent(w io.Writer, key string, lv *node.LogsView) {
	if lv.Runner == "" || lv.Status == "finished" || lv.Status == "error" {
		return
	}
	fmt.Fprintf(w, "note: %s runs on %s; its last %d lines come home with its result\n",
		key, lv.Runner, bridge.ResultLogLines)
}
