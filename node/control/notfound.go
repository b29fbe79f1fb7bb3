package control

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// notFound says a missing object in the user's words, as the CLI does:
// "flow 999 not found in context 1", or "context 99 not found on this
// agent" when the context itself is missing, not the chain of calls that
// failed (scheduler.Status: store.LoadFlowGraph: …). Any other error is
// returned as it is.
func (h *Handlers) notFound(ctx context.Context, err error, ctxID uint64, what string) error {
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, cerr := h.Store.Registry.LoadContext(ctx, ctxID); errors.Is(cerr, store.ErrNotFound) {
		return contextNotFound(ctxID)
	}
	return api.Errorf(api.CodeNotFound, "%s not found in context %d", what, ctxID)
}

// contextNotFound is the answer for a context this agent does not have.
func contextNotFound(id uint64) error {
	return api.Errorf(api.CodeNotFound, "context %d not found on this agent", id)
}

func flowWhat(id uint64) string { return fmt.Sprintf("flow %d", id) }
