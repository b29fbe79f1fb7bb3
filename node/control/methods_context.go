package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerContextMethods() {
	api.RegisterShapes(h.table, "context.create", "Create a context (tenant): {id, name}, this agent's actor its admin; "+
		"or the seed's {context:{id, admins, readers, executors}} (this agent's actor is admin when admins is empty).",
		api.Alt(func(ctx context.Context, p struct {
			ID   *uint64 `json:"id,omitempty"` // absent: the lowest free id
			Name string  `json:"name,omitempty"`
		}) (*wire.ContextView, error) {
			var id uint64
			if p.ID != nil {
				if id = *p.ID; id == 0 {
					return nil, api.InvalidParams("id", "there is no context 0: DB 0 is the agent's own; "+
						"context ids start at 1 (leave id out for the lowest free one)")
				}
			}
			return h.createContext(ctx, &model.Context{ID: id, Name: p.Name, Admins: []uint64{h.Self.ID}})
		}),
		api.Alt(func(ctx context.Context, p struct {
			Context wire.SeedContextIn `json:"context"`
		}) (*wire.ContextView, error) {
			in := p.Context
			c := &model.Context{ID: in.ID, Name: in.Name, Admins: in.Admins, Readers: in.Readers,
				Executors: in.Executors, CreatedAt: in.CreatedAt}
			if len(c.Admins) == 0 {
				c.Admins = []uint64{h.Self.ID}
			}
			return h.createContext(ctx, c)
		}))
	api.Register(h.table, "context.load", "Show one context with its admins, executors and readers.",
		func(ctx context.Context, p struct {
			ID uint64 `json:"id"`
		}) (*wire.ContextView, error) {
			c, err := h.Store.Registry.LoadContext(ctx, p.ID)
			if errors.Is(err, store.ErrNotFound) {
				return nil, contextNotFound(p.ID)
			}
			if err != nil {
				return nil, err
			}
			return contextView(c), nil
		})
	api.Register(h.table, "context.list", "List this agent's contexts.",
		func(ctx context.Context, _ struct{}) ([]*wire.ContextView, error) {
			cs, err := h.Store.Registry.ListContexts(ctx)
			if err != nil {
				return nil, err
			}
			out := make([]*wire.ContextView, 0, len(cs))
			for _, c := range cs {
				out = append(out, contextView(c))
			}
			return out, nil
		})
	api.Register(h.table, "context.grant", "Give an actor (peer ID, registered if new) a role: admin, executor or reader.",
		func(ctx context.Context, p wire.GrantParams) (*wire.ContextView, error) { return h.grant(ctx, p, true) })
	api.Register(h.table, "context.revoke", "Take a role away from an actor.",
		func(ctx context.Context, p wire.GrantParams) (*wire.ContextView, error) {
			return h.grant(ctx, p, false)
		})
	api.Register(h.table, "context.set", "Set a context's containment (an admin's choice, docs/design.md, Contained jobs): "+
		"isolation host (jobs from other actors run uncontained: they can read this agent's key, token and store), "+
		"contained (this agent's own jobs run contained too) or \"\" (the runner's configuration); "+
		"network none (every job of the context runs contained with only loopback), host or \"\" (each job's own). "+
		"A field left out keeps its value, \"\" removes it. Jobs that start from a few seconds on follow it.",
		h.setContext)
}

// createContext creates c; when its id names the context the agent made by
// itself to record jobs sent away (originContext), it adopts that one:
// the user asked for context N and gets it, with those jobs in it.
func (h *Handlers) createContext(ctx context.Context, c *model.Context) (*wire.ContextView, error) {
	err := h.Store.Registry.CreateContext(ctx, c)
	if errors.Is(err, store.ErrExists) {
		err = h.Store.Registry.AdoptContext(ctx, c)
	}
	if err != nil {
		return nil, err
	}
	h.ContextsChanged()
	return contextView(c), nil
}

func (h *Handlers) grant(ctx context.Context, p wire.GrantParams, give bool) (*wire.ContextView, error) {
	role := model.Role(p.Role)
	if !role.Valid() {
		return nil, api.InvalidParams("role", "%q: want admin, executor or reader", p.Role)
	}
	a, err := h.resolveActor(ctx, p.Actor, give)
	if err != nil {
		return nil, err
	}
	if !give && role == model.RoleAdmin {
		if err := h.keepAnAdmin(ctx, p.ID, a.ID); err != nil {
			return nil, err
		}
	}
	var c *model.Context
	if give {
		c, err = h.Store.Registry.Grant(ctx, p.ID, a.ID, role)
	} else {
		c, err = h.Store.Registry.Revoke(ctx, p.ID, a.ID, role)
	}
	if err != nil {
		return nil, err
	}
	return contextView(c), nil
}

// keepAnAdmin refuses to take the admin role from a context's only admin:
// nobody could grant or revoke in it any more.
func (h *Handlers) keepAnAdmin(ctx context.Context, ctxID, actorID uint64) error {
	c, err := h.Store.Registry.LoadContext(ctx, ctxID)
	if errors.Is(err, store.ErrNotFound) {
		return contextNotFound(ctxID)
	}
	if err != nil {
		return err
	}
	if len(c.Admins) == 1 && c.Admins[0] == actorID {
		return api.Errorf(api.CodeConflict, "actor %d is the last admin of context %d: grant another admin first", actorID, ctxID)
	}
	return nil
}
