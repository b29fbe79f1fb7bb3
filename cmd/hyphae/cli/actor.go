package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newActor(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "actor",
		Short: "Actors known to this agent (people and agents, by peer ID)",
	}
	var asJSON, addJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List actors",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var as []wire.ActorView
			if err := g.call(cmd.Context(), "actor.list", nil, &as); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), as)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tPEER")
			for _, a := range as {
				fmt.Fprintf(tw, "%d\t%s\n", a.ID, actorLabel(&a))
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	add := &cobra.Command{
		Use:   "add PEER_ID",
		Short: "Register an actor by peer ID (grant does this too)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var a wire.ActorView
			if err := g.call(cmd.Context(), "actor.create", map[string]any{"pubkey": args[0]}, &a); err != nil {
				return err
			}
			if addJSON {
				return printJSON(cmd.OutOrStdout(), a)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "actor %d = %s\n", a.ID, a.Pubkey)
			return nil
		},
	}
	add.Flags().BoolVar(&addJSON, "json", false, "print the actor as JSON")
	cmd.AddCommand(list, add)
	return cmd
}

// actorLabel names an actor: its peer ID, marked when it is this agent.
func actorLabel(a *wire.ActorView) string {
	if a.Self {
		return a.Pubkey + " (this agent)"
	}
	return a.Pubkey
}
