package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newJobRetry(g *globals) *cobra.Command {
	var wait, asJSON bool
	var ctxFlag uint64
	cmd := &cobra.Command{
		Use:   "retry [CONTEXT] JOB",
		Short: "Queue a job that ended error again, as a new attempt",
		Long: `Queue a job that ended error (it failed, was stopped, timed out or was
dead-lettered as invalid) again on this agent's runner, as its next attempt:
same script, env and limits, its error cleared. A finished job, one still
queued or running, a flow's job or one sent to another agent is refused.
With --wait it follows the new attempt to its end; the exit code is then 0
when it finished, 1 when it failed again.

` + jobArgHelp,
		Example: "  hyphae job retry -c 1 job:1:42 --wait\n  hyphae job retry -c 1 42",
		Args:    ctxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, key, err := jobArgs(cmd, g, ctxFlag, args) // job_ref.go
			if err != nil {
				return err
			}
			var j wire.JobView
			if err := g.call(cmd.Context(), "job.retry", wire.JobRef{Context: id, Key: key}, &j); err != nil {
				return err
			}
			if wait {
				jw, err := waitJob(cmd.Context(), g, id, j.Key, cmd.ErrOrStderr(), !asJSON)
				if err != nil {
					return err
				}
				j = *jw
			}
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), j); err != nil {
					return err
				}
			} else {
				printJob(cmd.OutOrStdout(), &j, 0)
			}
			if wait && j.Status != "finished" {
				return failed("job %s %s: %s", j.Key, j.Status, j.Error)
			}
			if !wait && !asJSON {
				fmt.Fprintf(cmd.OutOrStdout(), "  follow: %s\n", followHint(g, id, j.Key))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the new attempt to its end")
	addContextFlag(cmd, &ctxFlag, contextUse)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the job as JSON")
	return cmd
}
