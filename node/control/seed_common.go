package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// seedContext checks a seed call's context_id: given, selectable, and a
// context of this agent.
func (h *Handlers) seedContext(ctx context.Context, id uint64) error {
	if id == 0 {
		return api.InvalidParams("context_id", "required: the context id (1 or more)")
	}
	if err := h.Store.Registry.CheckContextID(id); err != nil {
		return api.InvalidParams("context_id", "%v", err)
	}
	if _, err := h.Store.Registry.LoadContext(ctx, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return api.InvalidParams("context_id", "context %d does not exist on this agent (context.create first)", id)
		}
		return h.contextErr(err, id)
	}
	return nil
}
