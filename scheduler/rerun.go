package scheduler

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// ErrNoSuchJob: a rerun's --from names no job of the flow.
var ErrNoSuchJob = errors.New("no such job in the flow")

// Fields of a rerun's flow and of the jobs it reuses.
const (
	fRerunOf    = "rerun_of"    // flow: the flow it reruns
	fRerunFrom  = "rerun_from"  // flow: the job it reruns from ("" = the failed ones)
	fReusedFrom = "reused_from" // job: the job whose result it reuses
)

// Rerun starts a new run of the ended flow flowID that reuses the results
// of the jobs that completed outside the part that runs again: from job
// from and everything that depends on it, or — with from empty — every
// job that did not complete and everything that depends on one. The
// reused jobs are completed in the new flow with the old results (not
// run); the rest runs as in a new flow. caller owns the new flow.
func (s *Scheduler) Rerun(ctx context.Context, ctxID, flowID uint64, from string, caller uint64) (*model.Flow, error) {
	g, err := s.st.Flows.LoadFlowGraph(ctx, ctxID, flowID)
	if err != nil {
		return nil, fmt.Errorf("scheduler.Rerun: %w", err)
	}
	if !g.Flow.Status.Terminal() {
		return nil, fmt.Errorf("scheduler.Rerun: %w", stateError("flow %d is %s: rerun it once it has ended", flowID, g.Flow.Status))
	}
	f, err := fileOf(g)
	if err != nil {
		return nil, fmt.Errorf("scheduler.Rerun: %w", err)
	}
	if err := f.Validate(); err != nil { // a seed flow's jobs need not be named as a file's are
		return nil, fmt.Errorf("scheduler.Rerun: %w", stateError("flow %d cannot run again as a flow file: %v", flowID, err))
	}
	again, err := rerunSet(f, g, from)
	if err != nil {
		return nil, fmt.Errorf("scheduler.Rerun %d: %w", flowID, err)
	}
	reuse := reusedJobs(g, again)
	fl, err := s.create(ctx, f, caller, func(nf *model.Flow, jobs []*model.RunnerJob, nodes map[string]string) {
		nf.Extra[fRerunOf], nf.Extra[fRerunFrom] = strconv.FormatUint(flowID, 10), from
		for _, j := range jobs {
			if old := reuse[j.Name]; old != nil {
				j.Status, j.Result, j.Attempt = model.JobFinished, old.Result, old.Attempt
				j.Extra[fReusedFrom] = store.JobKey(old.CallerID, old.ID)
				reuseFiles(j, old) // files.go
				nodes[j.Name] = string(model.NodeCompleted)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler.Rerun %d: %w", flowID, err)
	}
	if err := s.startRerun(ctx, fl, reuse); err != nil {
		return nil, fmt.Errorf("scheduler.Rerun %d: %w", flowID, err)
	}
	s.log.Info("flow rerun", "context", ctxID, "flow", flowID, "new", fl.ID, "from", from, "reused", len(reuse))
	return fl, nil
}

// startRerun writes the reused results where the new flow's jobs read
// them, then starts it.
func (s *Scheduler) startRerun(ctx context.Context, fl *model.Flow, reuse map[string]*model.RunnerJob) error {
	results := map[string]string{}
	for name, j := range reuse {
		for k, v := range prefixed(name, j.Result) {
			results[k] = v
		}
	}
	if len(results) > 0 {
		if _, _, err := s.st.Flows.ApplyFlowStep(ctx, fl.ContextID, fl.ID, store.FlowStep{Results: results}); err != nil {
			return err
		}
	}
	return s.StartFlow(ctx, fl.ContextID, fl.ID)
}

// rerunSet is the jobs that run again: from and what depends on it, or
// the jobs that did not complete and what depends on them; with either,
// the jobs a compensation undid and what depends on them.
func rerunSet(f *flowfile.File, g *store.FlowGraph, from string) (map[string]bool, error) {
	var seeds []string
	if from != "" {
		if f.Job(from) == nil {
			names := make([]string, len(f.Jobs))
			for i, j := range f.Jobs {
				names[i] = j.Name
			}
			return nil, fmt.Errorf("%w: --from %q (its jobs: %s)", ErrNoSuchJob, from, strings.Join(names, ", "))
		}
		seeds = []string{from}
	}
	for _, j := range f.Jobs {
		// A job its compensation undid runs again too: its result is gone.
		undone := model.NodeState(g.Nodes[j.Name+compSuffix]) == model.NodeCompleted
		if undone || (from == "" && model.NodeState(g.Nodes[j.Name]) != model.NodeCompleted) {
			seeds = append(seeds, j.Name)
		}
	}
	if len(seeds) == 0 {
		return nil, stateError("flow %d completed every job: nothing failed to rerun; name a job with --from", g.Flow.ID)
	}
	return downstream(f, seeds), nil
}

// downstream is seeds and every job that depends on one of them.
func downstream(f *flowfile.File, seeds []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range seeds {
		out[s] = true
	}
	for grew := true; grew; {
		grew = false
		for _, j := range f.Jobs {
			if !out[j.Name] && slices.ContainsFunc(j.Needs, func(n string) bool { return out[n] }) {
				out[j.Name], grew = true, true
			}
		}
	}
	return out
}

// reusedJobs is the old jobs, by name, that completed and do not run
// again.
func reusedJobs(g *store.FlowGraph, again map[string]bool) map[string]*model.RunnerJob {
	out := map[string]*model.RunnerJob{}
	for _, j := range g.Jobs {
		if !again[j.Name] && model.NodeState(g.Nodes[j.Name]) == model.NodeCompleted {
			out[j.Name] = j
		}
	}
	return out
}
