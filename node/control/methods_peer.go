package control

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/node/api"
)

// PeerView is a row of peer.list (and `hyphae peers --json`).
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
	Conn        string   `json:"conn,omitempty"` // direct, relayed, or empty: not connected now
}

func (h *Handlers) registerPeerMethods() {
	api.Register(h.table, "peer.list", "The peer table: every agent this one knows, with state, roles, types, load.",
		func(ctx context.Context, _ struct{}) ([]PeerView, error) {
			ps, err := h.Store.ListPeers(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]PeerView, 0, len(ps))
			for _, p := range ps {
				out = append(out, PeerView{PeerID: p.PeerID, State: string(p.State), Roles: nzs(p.Roles),
					ScriptTypes: nzs(p.ScriptTypes), Load: p.Load, Capacity: p.Capacity, LastSeen: p.LastSeen,
					FoundVia: p.FoundVia, Addrs: nzs(p.Addrs), Version: p.Version, Conn: h.connKind(p.PeerID)})
			}
			return out, nil
		})
}

// connKind is how this agent is connected to the peer now (overlay.ConnKind).
func (h *Handlers) connKind(id string) string {
	p, err := peer.Decode(id)
	if h.Overlay == nil || err != nil {
		return ""
	}
	return h.Overlay.ConnKind(p)
}
