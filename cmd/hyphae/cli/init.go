package cli

import (
	"github.com/spf13/cobra"
)

func newInit(g *globals) *cobra.Command {
	var swarm bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a data dir: actor key, config file and API token",
		Long: `Create the agent's data dir (default ~/.hyphae, or $HYPHAE_DATA_DIR, or
--data-dir): an ed25519 actor key (actor.key, mode 0600) whose public key is
this agent's peer ID, a commented config (hyphae.yaml) and an API token
(api.token). An existing key is never overwritten: on a data dir that has
one already, init writes nothing, says so with the peer ID and exits 0, so
that "hyphae init && hyphae run" works on every start. --swarm-key there is
refused unless the data dir has a swarm.key (init does not edit a config).`,
		Example: "  hyphae init\n  hyphae init --data-dir /var/lib/hyphae --swarm-key",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.agent.Init(cmd.OutOrStdout(), g.dataDir, swarm); err != nil {
				return failed("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&swarm, "swarm-key", false, "also generate a swarm key: a private network only agents holding it can join")
	return cmd
}
