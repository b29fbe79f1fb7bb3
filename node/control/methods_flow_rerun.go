package control

import (
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
)

func (h *Handlers) registerFlowRerun() {
	api.Register(h.table, "flow.rerun", "Start a new run of an ended flow that reuses the results of the jobs that completed "+
		"outside what runs again: job `from` and everything that depends on it, or (no from) the jobs that did not complete. "+
		"Answers the new flow.", h.flowRerun)
}

func (h *Handlers) flowRerun(ctx context.Context, p wire.FlowRerunParams) (*wire.FlowView, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	if h.Draining() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new flows")
	}
	fl, err := h.Sched.Rerun(ctx, p.Context, p.ID, p.From, h.Self.ID)
	if errors.Is(err, scheduler.ErrNoSuchJob) {
		return nil, api.InvalidParams("from", "%v", err)
	}
	if err != nil {
		return nil, err
	}
	return h.flowStatus(ctx, wire.FlowRef{Context: fl.ContextID, ID: fl.ID})
}
