package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

func newRun(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the agent on this machine (foreground; SIGINT/SIGTERM drain and stop)",
		Long: `Run the agent: store, overlay, runner and supervisor, and the local API.
Configuration comes from --config (default <data-dir>/hyphae.yaml when it
exists); every flag given overrides its key. With no Redis configured the
agent runs its own. The first SIGINT/SIGTERM drains (no new work, running
jobs finish, outbox flushed) and exits 0; a second one exits at once.`,
		Example: `  hyphae run
  hyphae run --data-dir /tmp/a --listen /ip4/0.0.0.0/tcp/4101 --api 127.0.0.1:9701
  hyphae run --redis redis://127.0.0.1:6379 --roles runner --no-mdns \
      --bootstrap /ip4/192.0.2.10/tcp/4001/p2p/12D3KooW...
  hyphae run --relay-service            # a public rendezvous for home labs behind NAT`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := g.agent.Run(cmd.Context(), g.dataDir, cmd.Flags(), cmd.ErrOrStderr())
			var bad interface{ BadConfig() bool }
			switch {
			case err == nil:
				return nil
			case errors.As(err, &bad) && bad.BadConfig():
				return usage("%v", err)
			}
			return failed("%v", err)
		},
	}
	g.agent.RunFlags(cmd.Flags())
	return cmd
}
