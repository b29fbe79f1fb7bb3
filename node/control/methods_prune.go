package control

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerPruneMethods() {
	api.Register(h.table, "node.prune", "Remove ended jobs, flows and messages past the retention rules now (or say what would go).",
		func(ctx context.Context, p wire.PruneParams) (*wire.PruneView, error) { return h.prune(ctx, p) })
}

func (h *Handlers) prune(ctx context.Context, p wire.PruneParams) (*wire.PruneView, error) {
	if h.Janitor == nil {
		return nil, api.Errorf(api.CodeUnavailable, "retention is not running on this agent")
	}
	o := retention.Options{Context: p.Context, DryRun: p.DryRun}
	age := h.Cfg.Retention.MaxAge
	if p.OlderThan != "" {
		d, err := time.ParseDuration(p.OlderThan)
		if err != nil || d < 0 {
			return nil, api.Errorf(api.CodeInvalidParams, "older_than %q: want a duration such as 24h or 30m, not negative", p.OlderThan)
		}
		o.OlderThan, age = &d, d
	}
	rep, err := h.Janitor.Prune(ctx, o)
	if err != nil {
		return nil, err
	}
	return &wire.PruneView{DryRun: rep.DryRun, OlderThan: age.String(), Contexts: pruneCounts(rep.Contexts), Total: wire.PruneCounts(rep.Total())}, nil
}
