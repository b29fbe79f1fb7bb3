package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

func newNodeInfo(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Show the running agent: version, peer ID, roles, contexts, addresses, its Redis socket",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var v wire.InfoView
			if err := g.call(cmd.Context(), "node.info", nil, &v); err != nil {
				return err
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), v)
			}
			printInfo(cmd.OutOrStdout(), &v)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printInfo shows node.info as aligned lines, with the redis-cli command
// that reaches the store when it is on a unix socket.
func printInfo(w io.Writer, v *wire.InfoView) {
	line := func(k, val string) { fmt.Fprintf(w, "%-13s %s\n", k, val) }
	line("peer ID", v.PeerID)
	line("version", v.Version)
	line("roles", strings.Join(v.Roles, ", "))
	line("data dir", v.DataDir)
	line("API socket", v.Socket)
	line("API", or(v.API, "off (socket only)"))
	store := v.Store
	if !v.Persistent {
		store += " (in memory: keeps nothing across restarts)"
	}
	line("store", store)
	if v.RedisSocket != "" {
		line("redis socket", v.RedisSocket)
		line("", "redis-cli -s "+v.RedisSocket+" -n <context> …")
	}
	ids := make([]string, len(v.Contexts))
	for i, id := range v.Contexts {
		ids[i] = strconv.FormatUint(id, 10)
	}
	line("contexts", or(strings.Join(ids, ", "), "none"))
	line("listening", or(strings.Join(v.ListenAddrs, " "), "none"))
	line("mDNS", mdnsLine(v))
	line("script types", strings.Join(v.ScriptTypes, ", "))
	if v.Containment != "" {
		line("containment", v.Containment)
	}
	if v.Isolation != "" {
		line("isolation", v.Isolation)
	}
	up := (time.Duration(v.UptimeSec) * time.Second).String()
	if v.Draining {
		up += ", draining"
	}
	line("up", up)
}

// mdnsLine says whether mDNS runs, and why not when it was asked for.
func mdnsLine(v *wire.InfoView) string {
	switch {
	case v.MDNS:
		return "on"
	case v.MDNSOff != "":
		return "off: " + v.MDNSOff + " (use --bootstrap to reach other agents, --no-mdns to turn it off)"
	}
	return "off"
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
