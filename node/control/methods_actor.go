package node

import (
	"context"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
)

// ActorRef names an actor by peer ID (pubkey) or local numeric id.
type ActorRef struct {
	Actor string `json:"actor"`
}

func (n *Node) registerActorMethods() {
	api.Register(n.table, "actor.create", "Register an actor by its peer ID (idempotent).",
		func(ctx context.Context, p struct {
			Pubkey string `json:"pubkey"`
		}) (*ActorView, error) {
			if _, err := peer.Decode(p.Pubkey); err != nil {
				return nil, api.InvalidParams("pubkey", "not a peer ID: %v", err)
			}
			a, err := n.store.EnsureActor(ctx, p.Pubkey)
			if err != nil {
				return nil, err
			}
			return n.actorView(a), nil
		})
	api.Register(n.table, "actor.load", "Show one actor by peer ID or id.",
		func(ctx context.Context, p ActorRef) (*ActorView, error) {
			a, err := n.resolveActor(ctx, p.Actor, false)
			if err != nil {
				return nil, err
			}
			return n.actorView(a), nil
		})
	api.Register(n.table, "actor.list", "List the actors this agent knows.",
		func(ctx context.Context, _ struct{}) ([]*ActorView, error) {
			as, err := n.store.ListActors(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]*ActorView, 0, len(as))
			for _, a := range as {
				out = append(out, n.actorView(a))
			}
			return out, nil
		})
}

func (n *Node) actorView(a *model.Actor) *ActorView {
	addr := a.Address
	if addr == nil {
		addr = []string{}
	}
	return &ActorView{ID: a.ID, Pubkey: a.Pubkey, Address: addr, CreatedAt: a.CreatedAt,
		Self: a.Pubkey == n.id.PeerID().String()}
}

// resolveActor finds an actor by peer ID or numeric id; with create, an
// unknown peer ID is registered.
func (n *Node) resolveActor(ctx context.Context, ref string, create bool) (*model.Actor, error) {
	if ref == "" {
		return nil, api.InvalidParams("actor", "required: a peer ID (12D3KooW…) or an actor id")
	}
	if ref == "self" {
		return n.self, nil
	}
	if id, err := strconv.ParseUint(ref, 10, 64); err == nil {
		return n.store.LoadActor(ctx, id)
	}
	if _, err := peer.Decode(ref); err != nil {
		return nil, api.InvalidParams("actor", "%q is neither a peer ID nor an actor id", ref)
	}
	if create {
		return n.store.EnsureActor(ctx, ref)
	}
	return n.store.ActorByPubkey(ctx, ref)
}
