package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newJoin(g *globals) *cobra.Command {
	var p wire.InviteJoinParams
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "join CODE [--name NAME]",
		Short: "Join the agent that printed CODE (hyphae invite there): a role in its context",
		Long: `Dial the agent a code from "hyphae invite" names, prove this agent holds the
code (signed with this agent's key), and get the role it grants in that
agent's context. This agent then calls it NAME (--name, default its host
name), so that "hyphae job run -c N --to NAME" runs there. A used, expired,
revoked or forged code is refused with the reason, and nothing changes.`,
		Example: `  hyphae join hyi1.eyJwIjoiMTJEM0tvb1c...
  hyphae join hyi1.eyJwIjoiMTJEM0tvb1c... --name alice`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			p.Code = args[0]
			var v wire.InviteJoinView
			if err := g.call(cmd.Context(), "invite.join", p, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "joined %s (%s): %s in context %d\n", or(v.Name, v.Peer), v.Peer, v.Role, v.Context)
			if v.Runner != "" {
				fmt.Fprintf(cmd.OutOrStdout(), "this agent is %s there\n", v.Runner)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "try: hyphae job run -c %d --to %s --script 'uname -a' --wait\n", v.Context, or(v.Name, v.Peer))
			return nil
		},
	}
	cmd.Flags().StringVar(&p.Name, "name", "", "what this agent calls the other (default: its host name)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
