package control

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
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
	// Host is the host name the peer announces ("" from agents too old
	// to announce one).
	Host string `json:"host"`
	// Breaker is this agent's circuit breaker for the peer (this agent's
	// view; another agent may see the peer differently). Nil when the
	// agent has no bridge.
	Breaker *BreakerView `json:"breaker,omitempty"`
}

// BreakerView is a peer's circuit breaker in peer.list (docs/breakers.md).
type BreakerView struct {
	State     string `json:"state"`                // closed, open or half-open
	Failures  int    `json:"failures"`             // the peer's faults in a row
	OpenedAt  int64  `json:"opened_at"`            // unix seconds it last opened; 0: never
	Until     int64  `json:"until"`                // unix seconds a probe may go, while open; 0 otherwise
	Trips     uint64 `json:"trips"`                // how many times it opened
	LastError string `json:"last_error,omitempty"` // the last fault's reason
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
				// A row kept before presence strings were made plain (or by
				// an older agent on the same store) is made plain here.
				out = append(out, PeerView{PeerID: p.PeerID, State: string(p.State), Roles: nzs(model.PlainTexts(p.Roles)),
					ScriptTypes: nzs(model.PlainTexts(p.ScriptTypes)), Load: p.Load, Capacity: p.Capacity, LastSeen: p.LastSeen,
					FoundVia: p.FoundVia, Addrs: nzs(model.PlainTexts(p.Addrs)), Version: model.PlainText(p.Version),
					Conn: h.connKind(p.PeerID), Host: model.PlainText(model.PeerHost(p)), Breaker: h.breakerView(p.PeerID)})
			}
			return out, nil
		})
}

// breakerView is this agent's circuit breaker for peer id (nil without a
// bridge).
func (h *Handlers) breakerView(id string) *BreakerView {
	if h.Bridge == nil {
		return nil
	}
	s := h.Bridge.BreakerOf(id)
	v := &BreakerView{State: s.State, Failures: s.Failures, Trips: s.Trips, LastError: s.LastError}
	if !s.OpenedAt.IsZero() {
		v.OpenedAt = s.OpenedAt.Unix()
	}
	if !s.Until.IsZero() {
		v.Until = s.Until.Unix()
	}
	return v
}

// connKind is how this agent is connected to the peer now (overlay.ConnKind).
func (h *Handlers) connKind(id string) string {
	p, err := peer.Decode(id)
	if h.Overlay == nil || err != nil {
		return ""
	}
	return h.Overlay.ConnKind(p)
}
