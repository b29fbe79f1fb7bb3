package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// defaultHideAfter is how long a peer may be gone before peers leaves it
// out of its table (--all shows it).
const defaultHideAfter = 24 * time.Hour

func newPeers(g *globals) *cobra.Command {
	var asJSON, all, wide bool
	var hideAfter time.Duration
	cmd := &cobra.Command{
		Use:   "peers",
		Short: "List the agents this one knows: host, state, breaker, connection, roles, types, load, last seen",
		Long: `List the agents this one knows under a header, peer IDs shortened (--json
and --wide have them whole). HOST is the host name the peer announces ("-"
for agents too old to say). BREAKER is this agent's circuit breaker for the
peer (docs/breakers.md): closed, "open 12s" (jobs go elsewhere or are
refused for that much longer) or half-open (one probe job may go). CONN is
direct or relayed while connected, "-" otherwise. A peer not seen for
longer than --hide-after (default 24h) is left out; --all shows it.
--json lists every peer, with host and breaker {state, failures,
opened_at, until, trips, last_error}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ps []wire.PeerView
			if err := g.call(cmd.Context(), "peer.list", nil, &ps); err != nil {
				return err
			}
			if asJSON {
				if ps == nil {
					ps = []wire.PeerView{}
				}
				return printJSON(cmd.OutOrStdout(), ps)
			}
			w := cmd.OutOrStdout()
			if len(ps) == 0 {
				fmt.Fprintln(w, "no peers yet (mDNS blocked? no --bootstrap? see README troubleshooting)")
				return nil
			}
			shown, hidden := recentPeers(ps, hideAfter, all, time.Now())
			printPeerTable(w, shown, wide)
			if hidden > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "%d peers not seen for over %v left out (--all shows them)\n", hidden, hideAfter)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: a list of objects with peer_id and state")
	cmd.Flags().BoolVar(&all, "all", false, "also show peers gone for longer than --hide-after")
	cmd.Flags().DurationVar(&hideAfter, "hide-after", defaultHideAfter, "leave out peers not seen for longer than this")
	cmd.Flags().BoolVar(&wide, "wide", false, "whole peer IDs")
	return cmd
}

// recentPeers is ps without those last seen more than hideAfter before
// now (unless all), and how many it left out.
func recentPeers(ps []wire.PeerView, hideAfter time.Duration, all bool, now time.Time) ([]wire.PeerView, int) {
	if all || hideAfter <= 0 {
		return ps, 0
	}
	out := ps[:0:0]
	for _, p := range ps {
		if p.State != "up" && p.LastSeen > 0 && now.Sub(time.Unix(p.LastSeen, 0)) > hideAfter {
			continue
		}
		out = append(out, p)
	}
	return out, len(ps) - len(out)
}

// printPeerTable prints peers a line each under a header.
func printPeerTable(w io.Writer, ps []wire.PeerView, whole bool) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PEER\tHOST\tSTATE\tBREAKER\tCONN\tROLES\tTYPES\tLOAD\tSEEN\tVIA\tVERSION")
	for _, p := range ps {
		id := p.PeerID
		if !whole {
			id = shortRunner(id)
		}
		// Strings a peer announced are plain already (the agent strips
		// control bytes from presence); an older agent's answer may not be.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", model.PlainText(id), orDash(model.PlainText(p.Host)),
			model.PlainText(p.State), breakerCell(p.Breaker, time.Now()), orDash(model.PlainText(p.Conn)),
			orDash(model.PlainText(strings.Join(p.Roles, ","))), orDash(model.PlainText(strings.Join(p.ScriptTypes, ","))),
			p.Load, p.Capacity, seen(&p), orDash(model.PlainText(p.FoundVia)), orDash(model.PlainText(p.Version)))
	}
	tw.Flush()
}

// breakerCell is the BREAKER column: closed, half-open, or open with the
// time left before a probe may go ("-" from an agent that keeps none).
func breakerCell(b *wire.BreakerView, now time.Time) string {
	switch {
	case b == nil:
		return "-"
	case b.State == "open" && b.Until > 0:
		left := max(time.Unix(b.Until, 0).Sub(now).Round(time.Second), 0)
		return "open " + left.String()
	}
	return b.State
}

// seen says when peer p was last heard from: "12s ago", or "never".
func seen(p *wire.PeerView) string {
	if p.LastSeen <= 0 {
		return "never"
	}
	return time.Since(time.Unix(p.LastSeen, 0)).Round(time.Second).String() + " ago"
}
