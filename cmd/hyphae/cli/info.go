package cli

import (
	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/control"
)

func newNodeInfo(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "info",
		Short: "Show the running agent: version, peer ID, roles, contexts, addresses (JSON)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var v control.InfoView
			if err := g.call(cmd.Context(), "node.info", nil, &v); err != nil {
				return err
			}
			return printJSON(cmd.OutOrStdout(), v)
		},
	}
}
