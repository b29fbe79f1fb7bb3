package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/control"
)

func newPeers(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List the agents this one knows: state, roles, types, load, last seen, how found",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ps []control.PeerView
			if err := g.call(cmd.Context(), "peer.list", nil, &ps); err != nil {
				return err
			}
			if asJSON {
				if ps == nil {
					ps = []control.PeerView{}
				}
				return printJSON(cmd.OutOrStdout(), ps)
			}
			w := cmd.OutOrStdout()
			if len(ps) == 0 {
				fmt.Fprintln(w, "no peers yet (mDNS blocked? no --bootstrap? see README troubleshooting)")
			}
			for _, p := range ps {
				fmt.Fprintf(w, "%s  %-4s  roles=%s types=%s load=%d/%d  seen %s  via %s\n", p.PeerID, p.State,
					strings.Join(p.Roles, ","), strings.Join(p.ScriptTypes, ","), p.Load, p.Capacity, seen(&p), p.FoundVia)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of objects with peer_id and state")
	return cmd
}

// seen says when peer p was last heard from: "12s ago", or "never".
func seen(p *control.PeerView) string {
	if p.LastSeen <= 0 {
		return "never"
	}
	return time.Since(time.Unix(p.LastSeen, 0)).Round(time.Second).String() + " ago"
}
