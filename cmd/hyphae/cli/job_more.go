package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node"
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
