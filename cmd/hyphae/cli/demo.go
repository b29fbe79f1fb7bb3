package cli

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"
)

func newDemo(g *globals) *cobra.Command {
	var keep, verbose bool
	var dir string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run three agents in this process and a cross-tenant flow between them",
		Long: `Start alice, bob and carol in this process, each with its own actor key,
embedded store (redis-server when installed, else in memory) and libp2p host on
127.0.0.1. Alice and carol each create a context and grant bob the executor
role; bob runs a flow whose jobs land on their runners, passing results along.
The demo shows the DAG as it runs, prints the results and explains what
crossed the wire. Exits 0 when the flow finished.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log := slog.New(slog.DiscardHandler)
			if verbose {
				log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil))
			}
			if err := g.agent.Demo(cmd.Context(), cmd.OutOrStdout(), log, dir, keep, timeout); err != nil {
				return failed("demo: %v", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&keep, "keep", false, "leave the agents running until Ctrl-C, print how to talk to each and a login URL of alice's dashboard (her TCP API on a free loopback port)")
	cmd.Flags().StringVar(&dir, "dir", "", "where the agents' data dirs go, kept afterwards (default: a temp dir, removed at the end, Ctrl-C included)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show the agents' logs")
	cmd.Flags().DurationVar(&timeout, "timeout", 2*time.Minute, "give up after this long")
	return cmd
}
