package control

import (
	"context"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/invite"
)

// joinTimeout bounds one join: the dial and the handshake.
const joinTimeout = 30 * time.Second

// inviteJoin is bob's side of invite.join: prove the code to its agent,
// then name that agent here.
func (h *Handlers) inviteJoin(ctx context.Context, p wire.InviteJoinParams) (*wire.InviteJoinView, error) {
	c, err := invite.Parse(p.Code)
	if err != nil {
		return nil, api.InvalidParams("code", "%v", err)
	}
	if c.Peer == h.ID.PeerID().String() {
		return nil, api.InvalidParams("code", "this code is this agent's own: run hyphae join on the other machine")
	}
	name := strings.TrimSpace(p.Name)
	if name == "" {
		name = c.Name
	}
	if err := h.checkSwarm(c); err != nil {
		return nil, err
	}
	st, err := h.invites()
	if err != nil {
		return nil, err
	}
	req, err := invite.NewRequest(c, h.ID, time.Now())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, joinTimeout)
	defer cancel()
	a, err := invite.Join(ctx, h.Overlay.Host(), c, req)
	if err != nil {
		return nil, api.Errorf(api.CodeUnavailable, "%v", err)
	}
	if !a.OK {
		return nil, api.Errorf(api.CodeDenied, "join refused: %s", a.Reason)
	}
	if name != "" && name != "self" && name != wire.ToAny && !strings.HasPrefix(name, "runner:") {
		if err := st.SetPeerName(ctx, name, a.Peer); err != nil {
			return nil, err
		}
	}
	return &wire.InviteJoinView{Peer: a.Peer, Name: name, Context: a.Context, Role: a.Role, Runner: a.Runner,
		ActorID: a.ActorID}, nil
}

// namedPeer is the peer ID this agent named to (invite.join), if any.
func (h *Handlers) namedPeer(ctx context.Context, to string) (string, bool) {
	if to == "" || to == "self" || to == wire.ToAny || strings.HasPrefix(to, "runner:") {
		return "", false
	}
	if _, err := peer.Decode(to); err == nil {
		return "", false
	}
	st, err := h.invites()
	if err != nil {
		return "", false
	}
	id, err := st.PeerByName(ctx, to)
	return id, err == nil && id != ""
}
