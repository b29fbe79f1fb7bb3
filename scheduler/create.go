package scheduler

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Create stores flow file f in its context as a Flow hash (status
// dispatched), one RunnerJob hash per job (status
// waiting_for_prerequisites) and its node states (all pending), in one
// atomic step. caller is the actor id the flow and its jobs belong to.
// Nothing runs until StartFlow.
func (s *Scheduler) Create(ctx context.Context, f *flowfile.File, caller uint64) (*model.Flow, error) {
	return s.create(ctx, f, caller, nil)
}

// create is Create with patch, when not nil, applied to the hashes before
// they are written (a rerun marks the jobs it reuses).
func (s *Scheduler) create(ctx context.Context, f *flowfile.File, caller uint64,
	patch func(*model.Flow, []*model.RunnerJob, map[string]string)) (*model.Flow, error) {
	if f == nil || len(f.Jobs) == 0 {
		return nil, fmt.Errorf("scheduler.Create: a flow needs at least one job")
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("scheduler.Create: %w", err)
	}
	if f.Context == 0 {
		return nil, fmt.Errorf("scheduler.Create: %s: no context: add `context: N` to the file or pass one", f.Source)
	}
	if err := s.st.Registry.CheckContextID(f.Context); err != nil {
		return nil, fmt.Errorf("scheduler.Create: %w", err)
	}
	flowID, err := s.st.Flows.ReserveIDs(ctx, f.Context, "flow", 1)
	if err != nil {
		return nil, fmt.Errorf("scheduler.Create: %w", err)
	}
	firstJob, err := s.st.Flows.ReserveIDs(ctx, f.Context, "job", len(f.Jobs)+countCompensations(f))
	if err != nil {
		return nil, fmt.Errorf("scheduler.Create: %w", err)
	}
	fl, jobs, nodes := s.graph(f, caller, flowID, firstJob)
	shareTrace(fl, jobs, tracing.ForSubmission(ctx))
	if patch != nil {
		patch(fl, jobs, nodes)
	}
	if err := s.st.Flows.SaveFlowGraph(ctx, fl, jobs, nodes); err != nil {
		return nil, fmt.Errorf("scheduler.Create: %w", err)
	}
	s.log.Info("flow created", "context", fl.ContextID, "flow", fl.ID, "name", fl.Name, "jobs", len(jobs),
		"trace_id", fl.TraceID())
	return fl, nil
}

// shareTrace gives flow fl and its jobs traceparent tp: the caller's
// trace id when ctx has one (tracing.WithParent), else a new one.
func shareTrace(fl *model.Flow, jobs []*model.RunnerJob, tp string) {
	fl.SetTraceID(tp)
	for _, j := range jobs {
		j.SetTraceID(tp)
	}
}

// graph builds the hashes of a new flow.
func (s *Scheduler) graph(f *flowfile.File, caller, flowID, firstJob uint64) (*model.Flow, []*model.RunnerJob, map[string]string) {
	ids := make(map[string]uint64, len(f.Jobs))
	for i, j := range f.Jobs {
		ids[j.Name] = firstJob + uint64(i)
	}
	fl := &model.Flow{ID: flowID, CallerID: caller, ContextID: f.Context, Name: f.Name,
		EnvVars: maps.Clone(f.Env), Result: map[string]string{}, Status: model.FlowDispatched,
		Extra: model.Hash{fOnFailure: string(f.OnFailure), fTimeout: seconds(f.Timeout)}}
	jobs := make([]*model.RunnerJob, len(f.Jobs))
	nodes := make(map[string]string, len(f.Jobs))
	for i, spec := range f.Jobs {
		jobs[i] = jobOf(spec, fl, ids)
		jobs[i].SetConcurrency(spec.ConcurrencyIn(fl.EnvVars))
		jobs[i].SetNetwork(f.NetworkOf(spec))
		jobs[i].SetOutputs(spec.Outputs) // files between jobs (files.go)
		fl.Jobs = append(fl.Jobs, jobs[i].ID)
		nodes[spec.Name] = string(model.NodePending)
	}
	addCompensations(f, jobs, firstJob+uint64(len(f.Jobs)))
	return fl, jobs, nodes
}

// jobOf is the RunnerJob of one job spec: the ids of the jobs it needs
// are in dependends (upstream, as the seed means it; see
// model.ExtraUpstreamIn), its prerequisites (external names) empty.
func jobOf(spec *flowfile.JobSpec, fl *model.Flow, ids map[string]uint64) *model.RunnerJob {
	upstream := make([]uint64, 0, len(spec.Needs))
	for _, n := range spec.Needs {
		upstream = append(upstream, ids[n])
	}
	env := maps.Clone(spec.Env)
	if env == nil {
		env = map[string]string{}
	}
	return &model.RunnerJob{ID: ids[spec.Name], CallerID: fl.CallerID, ContextID: fl.ContextID,
		Name: spec.Name, FlowID: fl.ID, Script: spec.Script, ScriptType: spec.Type,
		Timeout: atoi(seconds(spec.Timeout)), Retries: spec.Retries, EnvVars: env,
		MemoryMB: spec.MemoryMB, CPU: spec.CPU,
		Result: map[string]string{}, Prerequisites: []string{}, Dependends: upstream,
		Status: model.JobWaiting, Runner: spec.Runner,
		Extra: delayFields(spec, model.Hash{fContinue: strconv.FormatBool(spec.ContinueOnError), fPin: spec.Runner,
			model.ExtraUpstreamIn: model.UpstreamInDependends})}
}

// seconds renders d as whole seconds, rounded up.
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}
