package control

import (
	"context"
	"strconv"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerActorMethods() {
	api.RegisterShapes(h.table, "actor.create", "Register an actor by its peer ID or hex ed25519 public key "+
		"(idempotent): {pubkey}, or the seed's {actor:{id, pubkey, address}} (a chosen id is kept).",
		api.Alt(func(ctx context.Context, p struct {
			Pubkey string `json:"pubkey"`
		}) (*wire.ActorView, error) {
			pub, err := peerIDOf(p.Pubkey)
			if err != nil {
				return nil, api.InvalidParams("pubkey", "%v", err)
			}
			a, err := h.Store.Registry.EnsureActor(ctx, pub)
			if err != nil {
				return nil, err
			}
			return h.actorView(a), nil
		}),
		api.Alt(func(ctx context.Context, p struct {
			Actor wire.SeedActorIn `json:"actor"`
		}) (*wire.SeedActor, error) {
			return h.seedActorCreate(ctx, p.Actor)
		}))
	api.RegisterShapes(h.table, "actor.load", "Show one actor: {actor} (peer ID or id), or the seed's {id}.",
		api.Alt(func(ctx context.Context, p wire.ActorRef) (*wire.ActorView, error) {
			a, err := h.resolveActor(ctx, p.Actor, false)
			if err != nil {
				return nil, err
			}
			return h.actorView(a), nil
		}),
		api.Alt(func(ctx context.Context, p struct {
			ID uint64 `json:"id"`
		}) (*wire.SeedActor, error) {
			a, err := h.Store.Registry.LoadActor(ctx, p.ID)
			if err != nil {
				return nil, err
			}
			return h.seedActorOf(a), nil
		}))
	api.Register(h.table, "actor.list", "List the actors this agent knows.",
		func(ctx context.Context, _ struct{}) ([]*wire.ActorView, error) {
			as, err := h.Store.Registry.ListActors(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]*wire.ActorView, 0, len(as))
			for _, a := range as {
				out = append(out, h.actorView(a))
			}
			return out, nil
		})
}

func (h *Handlers) actorView(a *model.Actor) *wire.ActorView {
	addr := a.Address
	if addr == nil {
		addr = []string{}
	}
	return &wire.ActorView{ID: a.ID, Pubkey: a.Pubkey, Address: addr, CreatedAt: a.CreatedAt,
		Self: a.Pubkey == h.ID.PeerID().String()}
}

// resolveActor finds an actor by peer ID or numeric id; with create, an
// unknown peer ID is registered.
func (h *Handlers) resolveActor(ctx context.Context, ref string, create bool) (*model.Actor, error) {
	if ref == "" {
		return nil, api.InvalidParams("actor", "required: a peer ID (12D3KooW…) or an actor id")
	}
	if ref == "self" {
		return h.Self, nil
	}
	if id, err := strconv.ParseUint(ref, 10, 64); err == nil {
		return h.Store.Registry.LoadActor(ctx, id)
	}
	if _, err := peer.Decode(ref); err != nil {
		return nil, api.InvalidParams("actor", "%q is neither a peer ID nor an actor id", ref)
	}
	if create {
		return h.Store.Registry.EnsureActor(ctx, ref)
	}
	return h.Store.Registry.ActorByPubkey(ctx, ref)
}
