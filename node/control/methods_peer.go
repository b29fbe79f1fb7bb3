package control

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerPeerMethods() {
	api.Register(h.table, "peer.list", "The peer table: every agent this one knows, with state, roles, types, load.",
		func(ctx context.Context, _ struct{}) ([]wire.PeerView, error) {
			ps, err := h.Store.Registry.ListPeers(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]wire.PeerView, 0, len(ps))
			for _, p := range ps {
				// A row kept before presence strings were made plain (or by
				// an older agent on the same store) is made plain here.
				out = append(out, wire.PeerView{PeerID: p.PeerID, State: string(p.State), Roles: nzs(model.PlainTexts(p.Roles)),
					ScriptTypes: nzs(model.PlainTexts(p.ScriptTypes)), Load: p.Load, Capacity: p.Capacity, LastSeen: p.LastSeen,
					FoundVia: p.FoundVia, Addrs: nzs(model.PlainTexts(p.Addrs)), Version: model.PlainText(p.Version),
					Conn: h.connKind(p.PeerID), Host: model.PlainText(model.PeerHost(p)), Breaker: h.breakerView(p.PeerID)})
			}
			return out, nil
		})
}

// breakerView is this agent's circuit breaker for peer id (nil without a
// bridge).
func (h *Handlers) breakerView(id string) *wire.BreakerView {
	if h.Bridge == nil {
		return nil
	}
	s := h.Bridge.BreakerOf(id)
	v := &wire.BreakerView{State: s.State, Failures: s.Failures, Trips: s.Trips, LastError: s.LastError}
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
