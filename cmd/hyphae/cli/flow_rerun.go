package cli

import (
	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newFlowRerun(g *globals) *cobra.Command {
	var asJSON, wait bool
	var from string
	cmd := flowCmd("rerun", "Run an ended flow again from a job, reusing what completed before it",
		func(cmd *cobra.Command, ref wire.FlowRef) error {
			var v wire.FlowView
			p := wire.FlowRerunParams{FlowRef: ref, From: from}
			if err := g.call(cmd.Context(), "flow.rerun", p, &v); err != nil {
				return err
			}
			if wait {
				end, err := followFlow(cmd.Context(), g, &v, progressPrinter(cmd.ErrOrStderr()))
				if err != nil {
					return err
				}
				v = *end
			}
			return showFlow(cmd.OutOrStdout(), &v, asJSON, wait)
		})
	cmd.Long = `Start a NEW run of an ended flow (same jobs, scripts and env). The jobs
that completed in it are reused — marked completed with their old results,
not run again — except the part that runs again: with --from JOB, that job
and everything that depends on it; without, every job that did not complete
(failed, cancelled, never ran) and everything that depends on one. A job
whose compensation undid it runs again too. The old flow is left as it is.`
	cmd.Example = "  hyphae flow rerun 7 --context 1             # from the jobs that failed\n" +
		"  hyphae flow rerun 7 --context 1 --from upload --wait"
	cmd.Flags().StringVar(&from, "from", "", "the job to run again, with everything that depends on it")
	cmd.Flags().BoolVar(&wait, "wait", false, "follow the new run to its end (exit code 1 when it fails)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the new flow as JSON")
	return cmd
}
