package control

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/node/api"
)

// PruneParams are node.prune's parameters.
type PruneParams struct {
	Context   uint64 `json:"context,omitempty"`    // 0: every context of the agent
	OlderThan string `json:"older_than,omitempty"` // a duration ("24h", "0s"); "": retention.max_age
	DryRun    bool   `json:"dry_run,omitempty"`    // remove nothing, report what would go
}

// PruneView answers node.prune: what went (or would go), per context and
// in all.
type PruneView struct {
	DryRun    bool                      `json:"dry_run"`
	OlderThan string                    `json:"older_than"` // the age applied
	Contexts  []retention.ContextReport `json:"contexts"`
	Total     retention.ContextReport   `json:"total"`
}

func (h *Handlers) registerPruneMethods() {
	api.Register(h.table, "node.prune", "Remove ended jobs, flows and messages past the retention rules now (or say what would go).",
		func(ctx context.Context, p PruneParams) (*PruneView, error) { return h.prune(ctx, p) })
}

func (h *Handlers) prune(ctx context.Context, p PruneParams) (*PruneView, error) {
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
	return &PruneView{DryRun: rep.DryRun, OlderThan: age.String(), Contexts: rep.Contexts, Total: rep.Total()}, nil
}
