package cli

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newInvite(g *globals) *cobra.Command {
	var p wire.InviteCreateParams
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "invite -c CONTEXT --role executor|reader|admin [--runner] [--expires 1h]",
		Short: "Let another machine in: prints the one line to run there (hyphae join CODE)",
		Long: `Make a one-time join code for context CONTEXT. Run the line it prints on the
other machine: that agent dials this one, proves it holds the code, and gets
the role here (and, with --runner, a runner record of the context, so jobs
left to this agent may go there). It then calls this agent by its host name,
so that "hyphae job run --to NAME" works there.

The code carries this agent's peer ID and addresses, the swarm key when the
network is private, and a secret: treat it as a password. It is good for one
join, until it expires (--expires, default 1h; 0 never). "hyphae invite list"
shows every code's state; "hyphae invite revoke ID" withdraws an open one.`,
		Example: `  hyphae invite -c 1 --role executor --runner
  hyphae invite -c 1 --role reader --expires 10m --json`,
		Args: ctxArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, _, err := contextArgs(cmd, p.Context, args, 0)
			if err != nil {
				return err
			}
			p.Context = id
			var v wire.InviteView
			if err := g.call(cmd.Context(), "invite.create", p, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "hyphae join %s\n", v.Code)
			fmt.Fprintf(cmd.ErrOrStderr(), "note: run that line on the other machine; it gives %s in context %d, once, %s\n",
				v.Role, v.Context, untilText(v.ExpiresAt))
			return nil
		},
	}
	addContextFlag(cmd, &p.Context, contextUse)
	cmd.Flags().StringVar(&p.Role, "role", "executor", "the role the joiner gets: executor, reader or admin")
	cmd.Flags().BoolVar(&p.Runner, "runner", false, "also register the joiner as a runner of the context")
	cmd.Flags().StringVar(&p.Expires, "expires", "1h", "how long the code holds (a duration: 10m, 24h; 0 never)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (the code in code)")
	cmd.AddCommand(newInviteList(g), newInviteRevoke(g))
	return cmd
}

func untilText(at int64) string {
	if at == 0 {
		return "with no expiry"
	}
	return "until " + time.Unix(at, 0).Format(time.RFC3339)
}

func newInviteList(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List this agent's invites: open, used (by whom), revoked or expired",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var vs []wire.InviteView
			if err := g.call(cmd.Context(), "invite.list", nil, &vs); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), vs)
			}
			printInvites(cmd.OutOrStdout(), vs)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printInvites(w io.Writer, vs []wire.InviteView) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCONTEXT\tROLE\tRUNNER\tSTATE\tEXPIRES\tUSED BY")
	for _, v := range vs {
		exp := "never"
		if v.ExpiresAt != 0 {
			exp = time.Unix(v.ExpiresAt, 0).Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%t\t%s\t%s\t%s\n", v.ID, v.Context, v.Role, v.Runner, v.State, exp, or(v.UsedBy, "-"))
	}
	_ = tw.Flush()
}

func newInviteRevoke(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "revoke ID",
		Short:   "Withdraw an open invite: its code is refused from now on",
		Example: "  hyphae invite list\n  hyphae invite revoke 3f2a9c0d1e4b5a67",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var v wire.InviteView
			if err := g.call(cmd.Context(), "invite.revoke", wire.InviteRef{ID: args[0]}, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "invite %s revoked\n", v.ID)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
