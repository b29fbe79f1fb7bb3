package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// HostIsolationWarning is what the agent logs of a context whose jobs
// from other actors run uncontained (context.set, and at start).
func HostIsolationWarning(id uint64) string {
	return "isolation host: jobs from other actors in context " + u64(id) +
		" run uncontained: they can read this agent's key, token and store"
}

func (h *Handlers) setContext(ctx context.Context, p wire.ContextSetParams) (*wire.ContextView, error) {
	switch {
	case p.ID == 0:
		return nil, api.InvalidParams("id", "want a context id, 1 or more")
	case p.Isolation == nil && p.Network == nil:
		return nil, api.InvalidParams("isolation", "give isolation or network (or both) to set; \"\" removes one")
	case p.Isolation != nil && model.CheckIsolation(*p.Isolation) != nil:
		return nil, api.InvalidParams("isolation", "%q: want host (jobs from other actors run uncontained), "+
			"contained (this agent's own jobs are contained too) or \"\" (the runner's configuration)", *p.Isolation)
	case p.Network != nil && model.CheckNetwork(*p.Network) != nil:
		return nil, api.InvalidParams("network", "%q: want none (every job of the context gets only loopback), "+
			"host or \"\" (each job's own setting)", *p.Network)
	}
	c, err := h.Store.Registry.SetContextIsolation(ctx, p.ID, p.Isolation, p.Network)
	if errors.Is(err, store.ErrNotFound) {
		return nil, api.Errorf(api.CodeNotFound, "context %d does not exist on this agent (hyphae context create --id %d)", p.ID, p.ID)
	}
	if err != nil {
		return nil, err
	}
	log := h.log().With("context", c.ID, "isolation", c.Isolation(), "network", c.Network())
	if c.Isolation() == model.IsolationHost {
		log.Warn(HostIsolationWarning(c.ID))
	} else {
		log.Info("context containment set")
	}
	return contextView(c), nil
}
