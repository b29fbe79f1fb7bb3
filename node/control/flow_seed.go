package control

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/scheduler"
)

// Flows made the seed way (docs/design.md, "How Hyphae reads the specifications it follows"): jobs written as hashes or with
// job.create, each naming in `dependends` the jobs that must finish
// first; then a flow:<id> whose `jobs` lists them; then flow.start. The
// scheduler runs flows from its own records (a node name per job, the
// upstream ids it reads edges from, node states), which a YAML flow gets
// when it is created. A seed flow gets them when it is started
// (adoptSeedFlow), after the same checks a YAML flow passes: every job
// present, every edge inside the flow, no cycle, known script types.
// From then on it runs, persists and resumes exactly as a YAML flow.

// seedGraph is a seed flow's jobs (in the flow's order) and, per job id,
// the ids it waits for; an error says what makes it no DAG.
type seedGraph struct {
	jobs     []*model.RunnerJob
	upstream map[uint64][]uint64
}

// loadSeedGraph reads flow f's jobs (job:<caller>:<id> of its context)
// and checks them; at names the failing field in errors ("flow.jobs").
func (h *Handlers) loadSeedGraph(ctx context.Context, f *model.Flow, at string) (*seedGraph, error) {
	if len(f.Jobs) == 0 {
		return nil, api.InvalidParams(at, "a flow needs at least one job id")
	}
	keys := make([]string, len(f.Jobs))
	for i, id := range f.Jobs {
		if slices.Contains(f.Jobs[:i], id) {
			return nil, api.InvalidParams(at, "job %d is listed twice", id)
		}
		keys[i] = store.JobKey(f.CallerID, id)
	}
	jobs, err := h.Store.Flows.LoadJobKeys(ctx, f.ContextID, keys)
	var fe *model.FieldError
	if errors.As(err, &fe) {
		return nil, api.InvalidParams(at, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	g := &seedGraph{jobs: jobs, upstream: map[uint64][]uint64{}}
	for i, j := range jobs {
		if j == nil {
			return nil, api.InvalidParams(at, "job %d: context %d has no %s (job.create it first; a flow's jobs are its caller_id's)",
				f.Jobs[i], f.ContextID, keys[i])
		}
		for _, d := range j.Dependends {
			if !slices.Contains(f.Jobs, d) {
				return nil, api.InvalidParams(at, "job %d depends on job %d, which is not in the flow", j.ID, d)
			}
		}
		g.upstream[j.ID] = j.Dependends
	}
	if cyc := scheduler.FindCycle(f.Jobs, g.upstream); cyc != nil {
		return nil, api.InvalidParams(at, "the jobs' dependends make a cycle: %v", cyc)
	}
	return g, h.checkSeedTypes(ctx, jobs, at)
}

// checkSeedTypes refuses script types that neither this agent, a peer it
// knows, the built-in set nor an external worker of the job's context (a
// runner record with local: true) runs, as flow.create does for a YAML
// flow.
func (h *Handlers) checkSeedTypes(ctx context.Context, jobs []*model.RunnerJob, at string) error {
	_, known, err := h.flowTypes(ctx)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if !slices.Contains(known, j.ScriptType) && !h.externalWorker(ctx, j.ContextID, j.ScriptType) {
			return api.InvalidParams(at, "job %d: no agent known here runs script type %q (known: %v)", j.ID, j.ScriptType, known)
		}
	}
	return nil
}

// startFlow starts flow id of context ctxID, adopting it first when it
// was made the seed way.
func (h *Handlers) startFlow(ctx context.Context, ctxID, id uint64) error {
	if err := h.adoptSeedFlow(ctx, ctxID, id); err != nil {
		return err
	}
	return h.Sched.StartFlow(ctx, ctxID, id)
}

// adoptSeedFlow gives a seed flow the scheduler's records (see the top
// of this file); a flow that has them already is left as it is.
func (h *Handlers) adoptSeedFlow(ctx context.Context, ctxID, id uint64) error {
	nodes, err := h.Store.Flows.FlowNodes(ctx, ctxID, id)
	if err != nil || len(nodes) > 0 {
		return err
	}
	f, err := h.Store.Flows.LoadFlow(ctx, ctxID, id)
	if err != nil {
		return err
	}
	if f.Status != "" && f.Status != model.FlowDispatched {
		return nil // the scheduler says why it cannot start
	}
	if f.ContextID == 0 {
		f.ContextID = ctxID
	}
	g, err := h.loadSeedGraph(ctx, f, "id")
	if err != nil {
		return err
	}
	fields, states := adoption(f, g)
	if _, err := h.Store.Flows.AdoptFlow(ctx, ctxID, id, fields, states); err != nil {
		return fmt.Errorf("adopt flow %d: %w", id, err)
	}
	return nil
}

// adoption is what AdoptFlow writes: per job its node name (its own, or
// job<id>), the flow id, the mark that its dependends hold its upstream
// ids (where the scheduler reads them, model.ExtraUpstreamIn), the mark
// that it is dispatched as a Message on msg_out (model.ExtraDispatchVia)
// and status waiting_for_prerequisites; every node pending.
func adoption(f *model.Flow, g *seedGraph) (map[string]model.Hash, map[string]string) {
	fields := map[string]model.Hash{}
	states := map[string]string{}
	taken := map[string]bool{}
	for _, j := range g.jobs {
		name := j.Name
		if name == "" || taken[name] {
			name = "job" + u64(j.ID)
		}
		taken[name] = true
		states[name] = string(model.NodePending)
		fields[store.JobKey(j.CallerID, j.ID)] = model.Hash{"name": name, "flow_id": u64(f.ID),
			model.ExtraUpstreamIn: model.UpstreamInDependends, "status": string(model.JobWaiting),
			model.ExtraDispatchVia: model.DispatchViaMsgOut}
	}
	return fields, states
}
