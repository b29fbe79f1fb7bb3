package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newDrain(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "drain",
		Short: "Drain and stop the agent: no new work, running jobs finish, outbox flushed",
		Long: `Ask the agent on --data-dir to drain, as SIGTERM does: it takes no new
work, lets running jobs finish within runner.drain_grace (then stops them as
"error: drained", requeued where retries allow), waits for its outbox to be
acknowledged, leaves the overlay and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var res map[string]any
			if err := g.call(cmd.Context(), "node.drain", nil, &res); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "draining (grace %vs)\n", res["grace_seconds"])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the agent's answer as JSON")
	return cmd
}
