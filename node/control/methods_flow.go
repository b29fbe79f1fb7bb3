package control

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

func (h *Handlers) registerFlowMethods() {
	h.registerScheduleMethods()
	h.registerFlowRerun()
	api.RegisterShapes(h.table, "flow.create", "Validate and store a flow: a flow file {file_content, base_dir, start}, "+
		"or the seed's {context_id, flow:{id, jobs:[job ids], env_vars, …}} whose jobs (job.create) name what they wait for in dependends.",
		api.Alt(h.flowCreateOnce), api.Alt(h.seedFlowCreate))
	api.RegisterShapes(h.table, "flow.start", "Start a created flow: {context, id} answers the flow; "+
		"the seed's {context_id, id} answers true, or false when it was started already.",
		api.Alt(h.flowStartOnce), api.Alt(h.seedFlowStart))
	api.RegisterShapes(h.table, "flow.load", "Show a flow: {context, id} with its jobs, or the seed's {context_id, id} (jobs as ids).",
		api.Alt(h.flowStatus), api.Alt(h.seedFlowLoad))
	api.RegisterShapes(h.table, "flow.dag", "A flow's DAG: nodes (by job id, with node_status), edges, roots, leaves, levels; "+
		"{context_id, id} or {context, id}.",
		api.Alt(h.flowDAG), api.Alt(func(ctx context.Context, p wire.FlowRef) (*wire.FlowDAG, error) {
			return h.flowDAG(ctx, wire.SeedRef{ContextID: p.Context, ID: p.ID})
		}))
	api.Register(h.table, "flow.status", "A flow's status, jobs and progress.", h.flowStatus)
	api.Register(h.table, "flow.wait", "Block until the flow ends, or changes from version `after`, or timeout seconds pass.", h.flowWait)
	api.Register(h.table, "flow.cancel", "Stop a flow's running jobs and cancel the rest.", func(ctx context.Context, p wire.FlowRef) (*wire.FlowView, error) {
		return h.flowAct(ctx, p, h.Sched.Cancel)
	})
	api.Register(h.table, "flow.list", "List a context's flows with progress.", func(ctx context.Context, p struct {
		Context uint64 `json:"context"`
	}) ([]wire.FlowSummary, error) {
		if err := h.checkFlowContext(ctx, p.Context); err != nil {
			return nil, err
		}
		ss, err := h.Sched.List(ctx, p.Context)
		return flowSummaries(ss), err
	})
}

func (h *Handlers) flowCreate(ctx context.Context, p wire.FlowCreateParams) (*wire.FlowView, error) {
	if _, err := adoptTrace(p.TraceParams); err != nil {
		return nil, err
	}
	ctx = tracing.WithParent(ctx, p.Caller()) // the scheduler gives the flow its trace id
	pf, err := h.readFlowFile(ctx, flowFileParams{FileContent: p.FileContent, FileName: p.FileName,
		BaseDir: p.BaseDir, Context: p.Context})
	if err != nil {
		return nil, err
	}
	f := pf.f
	if h.Draining() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new flows")
	}
	fl, err := h.Sched.Create(ctx, f, h.Self.ID)
	if err != nil {
		return nil, err
	}
	h.Tracer.BeginSubmit(fl.TraceID(), p.Caller(), fl.ContextID, "flow:"+u64(fl.ID)).End(nil)
	ref := wire.FlowRef{Context: fl.ContextID, ID: fl.ID}
	if p.Start {
		if err := h.Sched.StartFlow(ctx, ref.Context, ref.ID); err != nil {
			return nil, err
		}
	}
	v, err := h.flowStatus(ctx, ref)
	if err != nil {
		return nil, err
	}
	for _, w := range append(pf.warns, flowfile.CheckTypes(f, pf.served)...) {
		v.Warnings = append(v.Warnings, w.String())
	}
	if f.Schedule != nil {
		v.Warnings = append(v.Warnings, "the file's schedule is not installed by flow create or run: use hyphae flow schedule add FILE (flow.schedule.add)")
	}
	if f.On != nil { // a trigger, like a schedule, is installed apart (event.trigger.add)
		v.Warnings = append(v.Warnings, onWarning(p.Start))
	}
	return v, nil
}

// flowAct runs op on the flow and returns its view.
func (h *Handlers) flowAct(ctx context.Context, p wire.FlowRef, op func(context.Context, uint64, uint64) error) (*wire.FlowView, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	if err := op(ctx, p.Context, p.ID); err != nil {
		return nil, h.notFound(ctx, err, p.Context, flowWhat(p.ID))
	}
	return h.flowStatus(ctx, p)
}

func (h *Handlers) flowStatus(ctx context.Context, p wire.FlowRef) (*wire.FlowView, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	st, err := h.Sched.Status(ctx, p.Context, p.ID)
	if err != nil {
		return nil, h.notFound(ctx, err, p.Context, flowWhat(p.ID))
	}
	return h.withHosts(ctx, flowView(st)), nil
}

func (h *Handlers) flowWait(ctx context.Context, p wire.FlowWaitParams) (*wire.FlowView, error) {
	if err := h.checkFlowContext(ctx, p.Context); err != nil {
		return nil, err
	}
	d := time.Duration(p.Timeout) * time.Second
	if d <= 0 || d > time.Hour {
		d = time.Hour
	}
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	st, err := h.Sched.Next(wctx, p.Context, p.ID, p.After)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		// The wait ran out (maybe mid-read): answer with the flow as it is
		// now, read under the caller's context, so the caller waits again.
		st, err = h.Sched.Status(ctx, p.Context, p.ID)
	}
	if err != nil {
		return nil, h.notFound(ctx, err, p.Context, flowWhat(p.ID))
	}
	return h.withHosts(ctx, flowView(st)), nil
}

// checkFlowContext refuses context ids this agent cannot serve.
func (h *Handlers) checkFlowContext(ctx context.Context, id uint64) error {
	if id == 0 {
		return api.InvalidParams("context", "required: the context id (in the file as `context: N`, or given)")
	}
	if err := h.Store.Registry.CheckContextID(id); err != nil {
		return api.InvalidParams("context", "%v", err)
	}
	if _, err := h.Store.Registry.LoadContext(ctx, id); err != nil {
		return h.contextErr(err, id)
	}
	return nil
}

// flowTypes reads the peers once for a flow's script types: served are
// those this agent or a peer up now runs (a type outside them is a
// warning), known adds the built-in types and those of every peer this
// agent knows, up or not (a type outside them is an error).
func (h *Handlers) flowTypes(ctx context.Context) (served, known []string, err error) {
	peers, err := h.Store.Registry.ListPeers(ctx)
	if err != nil {
		return nil, nil, err
	}
	served = append([]string{}, h.ScriptTypes()...)
	known = append([]string{}, executor.BuiltinTypes...)
	for _, p := range peers {
		if p.State == model.PeerUp {
			served = append(served, p.ScriptTypes...)
		}
		known = append(known, p.ScriptTypes...)
	}
	sort.Strings(served)
	return slices.Compact(served), append(known, served...), nil
}

// onWarning is flow create's and run's warning for a file with on:, which
// they do not install: the run they make is one by hand, with no event.
func onWarning(started bool) string {
	const w = "this flow has on:, install it with `hyphae event trigger add FILE`"
	if started {
		return w + "; running it once now"
	}
	return w + "; created one run to start by hand"
}
