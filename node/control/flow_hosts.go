package control

import (
	"context"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/route"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// hosts maps the peer IDs this agent knows (itself included) to their
// host names, for the flow views to say where each job ran. A failure to
// read the peers leaves only this agent's own: the name is a help, not
// part of the flow.
func (h *Handlers) hosts(ctx context.Context) map[string]string {
	out := map[string]string{}
	if h.ID != nil {
		if n := hostName(); n != "" {
			out[h.ID.PeerID().String()] = n
		}
	}
	peers, err := h.Store.Registry.ListPeers(ctx)
	if err != nil {
		return out
	}
	for _, p := range peers {
		if n := model.PeerHost(p); n != "" {
			out[p.PeerID] = n
		}
	}
	return out
}

// withHosts fills in the host name of each job's runner.
func (h *Handlers) withHosts(ctx context.Context, v *wire.FlowView) *wire.FlowView {
	names := h.hosts(ctx)
	for i := range v.Jobs {
		v.Jobs[i].Host = names[v.Jobs[i].Runner]
	}
	return v
}

// dagHosts fills in the host name of each node's runner and the seed's
// supervisor_url, the agent it is routed to.
func (h *Handlers) dagHosts(ctx context.Context, d *wire.FlowDAG) *wire.FlowDAG {
	names := h.hosts(ctx)
	for id, n := range d.Nodes {
		p := h.peerOfRunner(ctx, d.ContextID, n.Runner)
		n.Host = names[p]
		if p != "" {
			n.SupervisorURL = "/p2p/" + p
		}
		d.Nodes[id] = n
	}
	return d
}

// peerOfRunner is the peer ID a node's runner field names, read by
// job.run's rule (a peer ID, self, runner:<id> through the context's
// record); "" when the field is empty (not routed yet) or names nobody.
func (h *Handlers) peerOfRunner(ctx context.Context, ctxID uint64, runner string) string {
	if runner == "" || h.ID == nil {
		return ""
	}
	if _, err := strconv.ParseUint(runner, 10, 64); err == nil {
		runner = "runner:" + runner // the bridge's bare record id
	}
	out, err := h.route(ctx, ctxID, runner)
	switch {
	case err != nil:
		return ""
	case out.Kind == route.Here:
		return h.ID.PeerID().String()
	}
	return out.Peer
}
