package scheduler

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// fileOf rebuilds the flow file a stored flow was created from, for a
// rerun: what each job runs, where, with which env and limits.
func fileOf(g *store.FlowGraph) (*flowfile.File, error) {
	fl := g.Flow
	f := &flowfile.File{Name: fl.Name, Context: fl.ContextID, Env: maps.Clone(fl.EnvVars),
		Timeout:   time.Duration(atoi(fl.Extra[fTimeout])) * time.Second,
		OnFailure: flowfile.OnFailure(fl.Extra[fOnFailure]), Source: fmt.Sprintf("flow %d", fl.ID)}
	if f.OnFailure != flowfile.OnFailureStop {
		f.OnFailure = flowfile.OnFailureWait
	}
	byID := map[uint64]string{}
	for i, j := range g.Jobs {
		if j == nil {
			return nil, fmt.Errorf("flow %d: job %s is missing", fl.ID, store.JobKey(fl.CallerID, fl.Jobs[i]))
		}
		byID[j.ID] = j.Name
	}
	for _, j := range g.Jobs {
		f.Jobs = append(f.Jobs, specOf(j, byID, fl.EnvVars))
	}
	return f, nil
}

// specOf is the job spec a stored flow job came from. Its env as stored
// may hold what a dispatch added (the flow's env, HYPHAE_IN_*): those
// come back when it runs again, so they are dropped here.
func specOf(j *model.RunnerJob, byID map[uint64]string, flowEnv map[string]string) *flowfile.JobSpec {
	spec := &flowfile.JobSpec{Name: j.Name, Type: j.ScriptType, Script: j.Script, Runner: j.Runner,
		Timeout: time.Duration(j.Timeout) * time.Second, Retries: j.Retries, MemoryMB: j.MemoryMB,
		CPU: j.CPU, ContinueOnError: j.Extra[fContinue] == "true", Env: map[string]string{},
		Concurrency: j.Concurrency(), Network: j.Network(), Outputs: j.Outputs()}
	if pin, ok := j.Extra[fPin]; ok {
		spec.Runner = pin
	}
	for _, id := range j.Upstream() {
		spec.Needs = append(spec.Needs, byID[id])
	}
	for k, v := range j.EnvVars {
		if fv, ok := flowEnv[k]; (ok && fv == v) || strings.HasPrefix(k, "HYPHAE_") {
			continue
		}
		spec.Env[k] = v
	}
	if d := atoi(j.Extra[fDelay]); d > 0 {
		spec.Delay = time.Duration(d) * time.Second
	} else if at, ok := store.ParseRunAt(j.Extra[store.RunAtField]); ok {
		spec.RunAt = at
	}
	spec.Compensate = compSpecOf(j)
	return spec
}

// compSpecOf is the compensation a stored job names, or nil.
func compSpecOf(j *model.RunnerJob) *flowfile.JobSpec {
	var cs compSpec
	if raw := j.Extra[fCompensate]; raw == "" || json.Unmarshal([]byte(raw), &cs) != nil {
		return nil
	}
	return &flowfile.JobSpec{Name: j.Name, Type: cs.Type, Script: cs.Script, Runner: cs.Runner, Env: cs.Env,
		Timeout: time.Duration(cs.Timeout) * time.Second, Retries: cs.Retries, Network: cs.Network}
}
