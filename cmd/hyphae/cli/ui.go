package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newUI(g *globals) *cobra.Command {
	var urlOnly, asJSON bool
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the web dashboard: print a URL that logs a browser in once",
		Long: `Ask the agent for a one-time login token and print the dashboard's URL
with it (the agent's TCP API address, default http://127.0.0.1:9652). Opening
the URL trades the token for a session cookie; the token then no longer works,
and it expires unused after two minutes. The session lasts 12 hours or until
the agent restarts. --url prints the URL alone, for scripts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var v wire.LoginView
			if err := g.call(cmd.Context(), "ui.login_token", nil, &v); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case asJSON:
				return printJSON(out, v)
			case v.URL == "":
				return failed("%s", v.Note)
			case urlOnly:
				fmt.Fprintln(out, v.URL)
			default:
				fmt.Fprintf(out, "Open this URL in a browser on this machine (it works once, until %s):\n\n  %s\n",
					time.Unix(v.ExpiresAt, 0).Format(time.TimeOnly), v.URL)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&urlOnly, "url", false, "print the URL alone")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the token, its expiry and the URL as JSON")
	return cmd
}
