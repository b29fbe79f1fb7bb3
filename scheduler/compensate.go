package scheduler

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// Sagas. A job may name a compensation (`compensate:`): when its flow
// ends error or is cancelled after the job completed, the compensation
// runs as a job of its own, with the job's result as HYPHAE_RESULT_<KEY>.
// Compensations run in reverse dependency order: a job's compensation
// waits for the compensations of every job that depends on it. While they
// run the flow stays started with compensation=compensating; it then ends
// error with compensation=compensated, or compensation_failed naming the
// job whose compensation failed (those waiting for it are cancelled).
//
// State lives beside the flow's own, so a restarted agent resumes it:
// node "<job>.compensate" in flow_nodes, the compensation's job hash (its
// id reserved at Create, its key in the job's compensate_key), and the
// flow fields below.

// Fields of the job and flow hashes for compensation.
const (
	fCompensate   = "compensate"         // job: the compensation spec, JSON
	fCompKey      = "compensate_key"     // job: the compensation's job key
	fCompensates  = "compensates"        // compensation job: the job it undoes
	fCompensation = "compensation"       // flow: compensating | compensated | compensation_failed
	fCompError    = "compensation_error" // flow: which compensation failed, and why
)

// Flow compensation states (the flow's compensation field).
const (
	Compensating       = "compensating"
	Compensated        = "compensated"
	CompensationFailed = "compensation_failed"
)

// compSuffix names a compensation's node: "<job>.compensate" (a job name
// holds no '.', so it never collides with a job).
const compSuffix = ".compensate"

// compSpec is a compensation as stored on its job (fCompensate).
type compSpec struct {
	Type    string            `json:"type"`
	Script  string            `json:"script"`
	Runner  string            `json:"runner,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Timeout int64             `json:"timeout,omitempty"`
	Retries int64             `json:"retries,omitempty"`
	Network string            `json:"network,omitempty"` // its own, else the job's (flowfile/network.go)
}

// countCompensations is how many jobs of f name a compensation.
func countCompensations(f *flowfile.File) int {
	n := 0
	for _, j := range f.Jobs {
		if j.Compensate != nil {
			n++
		}
	}
	return n
}

// addCompensations records on each job that has one its compensation's
// spec and job key, ids from next on.
func addCompensations(f *flowfile.File, jobs []*model.RunnerJob, next uint64) {
	for i, spec := range f.Jobs {
		c := spec.Compensate
		if c == nil {
			continue
		}
		cs := compSpec{Type: c.Type, Script: c.Script, Runner: c.Runner, Env: c.Env,
			Timeout: atoi(seconds(c.Timeout)), Retries: c.Retries, Network: cmp.Or(c.Network, f.NetworkOf(spec))}
		b, _ := json.Marshal(cs) // strings and ints always encode
		jobs[i].Extra[fCompensate] = string(b)
		jobs[i].Extra[fCompKey] = store.JobKey(jobs[i].CallerID, next)
		next++
	}
}

// compNode is the node of job j's compensation, or nil when it has none.
// Its job is the first attempt's base; the results of j feed its env.
func compNode(j *model.RunnerJob) *node {
	raw, key := j.Extra[fCompensate], j.Extra[fCompKey]
	var cs compSpec
	if raw == "" || key == "" || json.Unmarshal([]byte(raw), &cs) != nil {
		return nil
	}
	_, id, err := store.ParseJobKey(key)
	if err != nil {
		return nil
	}
	name := j.Name + compSuffix
	env := maps.Clone(cs.Env)
	if env == nil {
		env = map[string]string{}
	}
	cj := &model.RunnerJob{ID: id, CallerID: j.CallerID, ContextID: j.ContextID, Name: name,
		FlowID: j.FlowID, Script: cs.Script, ScriptType: cs.Type, Timeout: cs.Timeout,
		Retries: cs.Retries, EnvVars: env, Result: map[string]string{}, Status: model.JobWaiting,
		Runner: cs.Runner, Extra: model.Hash{fPin: cs.Runner, fCompensates: j.Name}}
	cj.SetNetwork(cs.Network)
	return &node{name: name, key: key, job: cj, pin: cs.Runner, comp: j.Name}
}

// addCompNodes adds the compensation nodes of the flow's jobs (not to
// order: they are no part of the DAG); a node has a state once the flow
// started compensating.
func (r *flowRun) addCompNodes(jobs []*model.RunnerJob, states map[string]string) {
	for _, j := range jobs {
		c := compNode(j)
		if c == nil {
			continue
		}
		r.nodes[c.name] = c
		r.comps = append(r.comps, c.name)
		if st := states[c.name]; st != "" {
			r.state[c.name] = model.NodeState(st)
		}
	}
}

// compensate starts or advances the compensations of a failed flow
// (caller holds mu). busy reports that some still run, so the flow must
// not end yet; when none is left it leaves the outcome in r.compEnd.
func (s *Scheduler) compensate(ctx context.Context, r *flowRun) (busy bool, err error) {
	if !r.compensating {
		started, err := s.startCompensation(ctx, r)
		if err != nil || !started {
			return false, err
		}
	}
	if err := s.advanceCompensation(ctx, r); err != nil {
		return false, err
	}
	for _, c := range r.comps {
		if st, ok := r.state[c]; ok && !st.Terminal() {
			return true, nil
		}
	}
	if err := s.loadCompErrs(ctx, r); err != nil {
		return false, err
	}
	r.compEnd = r.compOutcome()
	return false, nil
}

// loadCompErrs reads why compensations failed that this scheduler did not
// see fail (a restart came in between) from their job hashes.
func (s *Scheduler) loadCompErrs(ctx context.Context, r *flowRun) error {
	var names, keys []string
	for _, c := range r.comps {
		if r.state[c] == model.NodeFailed && r.compErrs[c] == "" {
			names, keys = append(names, c), append(keys, r.nodes[c].key)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	jobs, err := s.st.Flows.LoadJobKeys(ctx, r.key.ctx, keys)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		if j != nil {
			r.compErrs[names[i]] = j.Error
		}
	}
	return nil
}

// startCompensation marks the compensations of the completed jobs pending
// and the flow compensating, in one step; false when there is none.
func (s *Scheduler) startCompensation(ctx context.Context, r *flowRun) (bool, error) {
	var moves []store.NodeMove
	for _, c := range r.comps {
		if r.state[r.nodes[c].comp] == model.NodeCompleted {
			moves = append(moves, store.NodeMove{Name: c, From: []string{""}, To: string(model.NodePending)})
		}
	}
	if len(moves) == 0 {
		return false, nil
	}
	step := store.FlowStep{FlowStatus: []string{string(model.FlowDispatched), string(model.FlowStarted)},
		Moves: moves, Flow: s.touch(fError, r.fatal, fCompensation, Compensating)}
	if err := s.applyGuarded(ctx, r, step); err != nil {
		return false, err
	}
	r.compensating = true
	if r.timer != nil {
		r.timer.Stop() // the flow timeout does not cut its own undoing short
	}
	s.log.Info("flow compensating", "context", r.key.ctx, "flow", r.key.id, "compensations", len(moves), "trace_id", r.trace)
	return true, nil
}

// advanceCompensation dispatches the compensations whose turn came (every
// compensation of a job depending on theirs has ended) and cancels those
// one of which failed.
func (s *Scheduler) advanceCompensation(ctx context.Context, r *flowRun) error {
	var moves []store.NodeMove
	var ready []string
	for _, c := range r.comps {
		st, ok := r.state[c]
		if !ok || (st != model.NodePending && st != model.NodeReady) {
			continue
		}
		switch r.compTurn(c) {
		case turnBlocked:
			moves = append(moves, store.NodeMove{Name: c, From: []string{string(st)}, To: string(model.NodeCancelled)})
		case turnNow:
			if st == model.NodePending {
				moves = append(moves, store.NodeMove{Name: c, From: []string{string(st)}, To: string(model.NodeReady)})
			}
			ready = append(ready, c)
		}
	}
	if len(moves) == 0 && len(ready) == 0 {
		return nil
	}
	step := &store.FlowStep{Moves: moves, Flow: s.touch()}
	return s.stepAndDispatch(ctx, r, step, ready)
}

type turn int

const (
	turnWait turn = iota
	turnNow
	turnBlocked
)

// compTurn says whether compensation c may run: after every compensation
// of the jobs depending on its job; never when one of those failed.
func (r *flowRun) compTurn(c string) turn {
	t := turnNow
	for _, d := range r.descendants(r.nodes[c].comp) {
		st, ok := r.state[d+compSuffix]
		switch {
		case !ok:
		case st == model.NodeFailed || st == model.NodeCancelled:
			return turnBlocked
		case !st.Terminal():
			t = turnWait
		}
	}
	return t
}

// compOutcome is what the flow records once no compensation runs.
func (r *flowRun) compOutcome() model.Hash {
	var failed, skipped []string
	for _, c := range r.comps {
		switch r.state[c] {
		case model.NodeFailed:
			why := r.compErrs[c]
			if why == "" {
				why = "failed"
			}
			failed = append(failed, fmt.Sprintf("compensation of job %q failed: %s", r.nodes[c].comp, why))
		case model.NodeCancelled:
			skipped = append(skipped, r.nodes[c].comp)
		}
	}
	if len(failed) == 0 {
		return model.Hash{fCompensation: Compensated, fCompError: ""}
	}
	if len(skipped) > 0 {
		failed = append(failed, "not compensated (they wait for it): "+strings.Join(skipped, ", "))
	}
	return model.Hash{fCompensation: CompensationFailed, fCompError: strings.Join(failed, "; ")}
}

// compSettled applies the end of a compensation job, then lets the next
// compensations run or the flow end (caller holds mu).
func (s *Scheduler) compSettled(ctx context.Context, r *flowRun, n *node, j *model.RunnerJob) error {
	to := model.NodeCompleted
	if j.Status != model.JobFinished {
		to = model.NodeFailed
		why := j.Error
		if why == "" {
			why = "ended with status " + string(j.Status)
		}
		r.compErrs[n.name] = why
	}
	step := store.FlowStep{Node: n.name, NodeStates: inFlight,
		Moves: []store.NodeMove{{Name: n.name, From: inFlight, To: string(to)}}, Flow: s.touch()}
	if err := s.applyGuarded(ctx, r, step); err != nil {
		return err
	}
	return s.finish(ctx, r) // the next compensations, or the end
}

// reconcileComp resumes a flow that was compensating (caller holds mu):
// compensations that ended while nobody listened are settled, and the
// rest go on.
func (s *Scheduler) reconcileComp(ctx context.Context, r *flowRun) error {
	var keys []string
	for _, c := range r.comps {
		if r.state[c].InFlight() {
			keys = append(keys, r.nodes[c].key)
		}
	}
	jobs, err := s.st.Flows.LoadJobKeys(ctx, r.key.ctx, keys)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j != nil && j.Status.Terminal() && !r.ended {
			if err := s.settle(ctx, r, j); err != nil {
				return err
			}
		}
	}
	if r.ended {
		return nil
	}
	return s.finish(ctx, r)
}
