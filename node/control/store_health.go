package control

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
)

// storeUnavailable is nil while the store answers, else why not: the
// embedded redis-server died and is being restarted, or gave up.
func (h *Handlers) storeUnavailable() error {
	if h.StoreHealth == nil {
		return nil
	}
	if err := h.StoreHealth(); err != nil {
		return fmt.Errorf("store unavailable: %w", err)
	}
	return nil
}

// contextErr is the answer to a failed load of context id: "does not exist"
// only when the store said so; when the store cannot answer, "store
// unavailable" with why, so that an outage is not taken for a missing
// context.
func (h *Handlers) contextErr(err error, id uint64) error {
	if errors.Is(err, store.ErrNotFound) {
		return api.InvalidParams("context", "context %d does not exist on this agent (hyphae context create --id %d)", id, id)
	}
	return api.Errorf(api.CodeUnavailable, "%v", cmp.Or(h.storeUnavailable(), fmt.Errorf("store unavailable: %w", err)))
}
