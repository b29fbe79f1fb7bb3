package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// PeerView is a row of `hyphae peers --json`.
type PeerView struct {
	PeerID      string   `json:"peer_id"`
	State       string   `json:"state"`
	Roles       []string `json:"roles"`
	ScriptTypes []string `json:"script_types"`
	Load        int64    `json:"load"`
	Capacity    int64    `json:"capacity"`
	LastSeen    int64    `json:"last_seen"`
	FoundVia    string   `json:"found_via"`
	Addrs       []string `json:"addrs"`
	Version     string   `json:"version"`
}

func newPeers(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List the agents this one knows: state, roles, types, load, last seen, how found",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ps []PeerView
			if err := g.call(cmd.Context(), "peer.list", nil, &ps); err != nil {
				return err
			}
			if asJSON {
				if ps == nil {
					ps = []PeerView{}
				}
				return printJSON(cmd.OutOrStdout(), ps)
			}
			w := cmd.OutOrStdout()
			if len(ps) == 0 {
				fmt.Fprintln(w, "no peers yet (mDNS blocked? no --bootstrap? see README troubleshooting)")
			}
			for _, p := range ps {
				ago := "never"
				if p.LastSeen > 0 {
					ago = time.Since(time.Unix(p.LastSeen, 0)).Round(time.Second).String() + " ago"
				}
				fmt.Fprintf(w, "%s  %-4s  roles=%s types=%s load=%d/%d  seen %s  via %s\n", p.PeerID, p.State,
					strings.Join(p.Roles, ","), strings.Join(p.ScriptTypes, ","), p.Load, p.Capacity, ago, p.FoundVia)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of objects with peer_id and state")
	return cmd
}
