package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

type idView struct {
	PeerID       string   `json:"peer_id"`
	AgeRecipient string   `json:"age_recipient"`
	DataDir      string   `json:"data_dir"`
	ListenAddrs  []string `json:"listen_addrs"`
	Running      bool     `json:"running"`
}

func newID(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "id",
		Short: "Print this agent's peer ID, age recipient and listen addresses",
		Long: `Print the peer ID derived from the actor key (what others grant roles to),
the age recipient messages to this agent are encrypted to, the data dir, and
— when the agent is running — its listen addresses. Works without a running
agent.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			peerID, ageRecipient, err := g.agent.Identity(g.dataDir)
			if err != nil {
				return failed("%v (run `hyphae init --data-dir %s` first)", err, g.dataDir)
			}
			v := idView{PeerID: peerID, AgeRecipient: ageRecipient, DataDir: g.dataDir, ListenAddrs: []string{}}
			ctx, cancel := context.WithTimeout(cmd.Context(), 2*time.Second)
			defer cancel()
			var info wire.InfoView
			if err := g.client().Call(ctx, "node.info", nil, &info); err == nil {
				v.Running, v.ListenAddrs = true, info.ListenAddrs
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "peer id:       %s\nage recipient: %s\ndata dir:      %s\n", v.PeerID, v.AgeRecipient, v.DataDir)
			if !v.Running {
				fmt.Fprintln(w, "agent:         not running")
			}
			for _, a := range v.ListenAddrs {
				fmt.Fprintf(w, "listening:     %s\n", a)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (keys peer_id, age_recipient, data_dir, listen_addrs, running)")
	return cmd
}
