package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
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

// dagHosts fills in the host name of each node's runner.
func (h *Handlers) dagHosts(ctx context.Context, d *wire.FlowDAG) *wire.FlowDAG {
	names := h.hosts(ctx)
	for id, n := range d.Nodes {
		n.Host = names[n.Runner]
		d.Nodes[id] = n
	}
	return d
}
