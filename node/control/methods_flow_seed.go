package control

import (
	"cmp"
	"context"
	"errors"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// seedFlowCreate is flow.create {context_id, flow:{…}}: the flow stored
// under the id its caller chose (or a new one), status dispatched, once
// its jobs pass the checks a YAML flow passes. flow.start runs it.
func (h *Handlers) seedFlowCreate(ctx context.Context, p wire.SeedFlowParams) (*wire.SeedFlow, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	in := p.Flow
	if in.ContextID != 0 && in.ContextID != p.ContextID {
		return nil, api.InvalidParams("flow.context_id", "is %d, but the call is for context %d", in.ContextID, p.ContextID)
	}
	st := model.FlowStatus(cmp.Or(in.Status, string(model.FlowDispatched)))
	if !st.Valid() {
		return nil, api.InvalidParams("flow.status", "%q: want dispatched, started, error or finished", in.Status)
	}
	if h.Draining() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new flows")
	}
	f := &model.Flow{ID: in.ID, CallerID: cmp.Or(in.CallerID, h.Self.ID), ContextID: p.ContextID, Name: in.Name,
		Jobs: in.Jobs, EnvVars: in.EnvVars, Result: in.Result, Status: st, CreatedAt: in.CreatedAt}
	if in.Error != "" {
		f.Extra = model.Hash{"error": in.Error}
	}
	if _, err := h.loadSeedGraph(ctx, f, "flow.jobs"); err != nil {
		return nil, err
	}
	if err := h.Store.Flows.CreateFlow(ctx, f); err != nil {
		return nil, err
	}
	return seedFlow(f), nil
}

// seedFlowStart is flow.start {context_id, id}: true when the flow starts
// now, false when it was started before (as the seed coordinator answers).
func (h *Handlers) seedFlowStart(ctx context.Context, p wire.SeedRef) (bool, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return false, err
	}
	f, err := h.Store.Flows.LoadFlow(ctx, p.ContextID, p.ID)
	if err != nil {
		return false, err
	}
	if f.Status != "" && f.Status != model.FlowDispatched {
		return false, nil
	}
	err = h.startFlow(ctx, p.ContextID, p.ID)
	if errors.Is(err, model.ErrBadTransition) {
		return false, nil // started by another call meanwhile
	}
	return err == nil, err
}

// seedFlowLoad is flow.load {context_id, id}.
func (h *Handlers) seedFlowLoad(ctx context.Context, p wire.SeedRef) (*wire.SeedFlow, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	f, err := h.Store.Flows.LoadFlow(ctx, p.ContextID, p.ID)
	if err != nil {
		return nil, err
	}
	return seedFlow(f), nil
}
