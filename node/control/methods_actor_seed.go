package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// seedActorCreate is actor.create {actor:{…}}: the actor with that pubkey,
// registered under the id the caller chose (or a new one). Registering a
// known pubkey again returns it (its address updated when one is given);
// a pubkey known under another id, or an id taken by another pubkey, is a
// conflict. An actor given no address gets the multiaddrs this agent
// knows for its peer (peerAddrs), and shows them while its record holds
// none; one given address [] shows [] (markNoAddress).
func (h *Handlers) seedActorCreate(ctx context.Context, in wire.SeedActorIn) (*wire.SeedActor, error) {
	pub, err := peerIDOf(in.Pubkey)
	if err != nil {
		return nil, api.InvalidParams("actor.pubkey", "%v", err)
	}
	a, err := h.Store.Registry.ActorByPubkey(ctx, pub)
	switch {
	case err == nil && in.ID != 0 && in.ID != a.ID:
		return nil, api.Errorf(api.CodeConflict, "pubkey %s belongs to actor %d, not %d", pub, a.ID, in.ID)
	case err == nil:
		if in.Address != nil {
			a.Address = in.Address
			markNoAddress(a, in.Address)
			if err := h.Store.Registry.SaveActor(ctx, a); err != nil {
				return nil, err
			}
		}
		return h.seedActorOf(a), nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	if in.ID != 0 {
		if other, err := h.Store.Registry.LoadActor(ctx, in.ID); err == nil {
			return nil, api.Errorf(api.CodeConflict, "actor %d exists with pubkey %s", in.ID, other.Pubkey)
		}
		if err := h.Store.Registry.ClaimActorID(ctx, in.ID); err != nil {
			return nil, err
		}
	}
	a = &model.Actor{ID: in.ID, Pubkey: pub, Address: in.Address, CreatedAt: in.CreatedAt}
	if a.Address == nil {
		a.Address = h.peerAddrs(pub) // where the peer is reachable, when this agent knows
	}
	markNoAddress(a, in.Address)
	if err := h.Store.Registry.SaveActor(ctx, a); err != nil {
		return nil, err
	}
	return h.seedActorOf(a), nil
}

// addressNone is the actor hash field that says its caller gave address
// [] (written only then): seedActorOf shows [] instead of the addresses
// this agent knows for the peer, which fill an address never given.
const addressNone = "address_none"

// markNoAddress notes on a that the caller gave address [] (given is the
// address of the call, nil when it had none).
func markNoAddress(a *model.Actor, given []string) {
	if given == nil || len(given) > 0 {
		return
	}
	if a.Extra == nil {
		a.Extra = model.Hash{}
	}
	a.Extra[addressNone] = "1"
}
