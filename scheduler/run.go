package scheduler

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// runKey names a flow: context and id.
type runKey struct{ ctx, id uint64 }

// node is one job of a running flow: what does not change while it runs.
type node struct {
	name  string
	key   string
	job   *model.RunnerJob // as loaded: the base of its first dispatch
	needs []string
	deps  []string // jobs that need this one
	cont  bool     // continue_on_error
	pin   string   // runner the file asked for
	comp  string   // a compensation: the job it undoes ("" for a job)
}

// remoteTrack follows a job dispatched to another agent.
type remoteTrack struct {
	peer      string // "" until known
	msgKey    string
	downSince time.Time
}

// flowRun is the in-memory side of a started flow; Redis holds the truth
// and every change goes there first, atomically.
type flowRun struct {
	key       runKey
	caller    uint64
	env       map[string]string
	nodes     map[string]*node
	order     []string // file order
	onFailure flowfile.OnFailure
	timeout   time.Duration
	trace     string      // the flow's traceparent, for its log lines
	dead      atomic.Bool // evicted: reload before use

	mu       sync.Mutex
	status   model.FlowStatus             // guarded by mu
	deadline time.Time                    // guarded by mu
	state    map[string]model.NodeState   // guarded by mu
	results  map[string]map[string]string // guarded by mu: job → result
	made     map[string]files.Input       // guarded by mu: job → its files, as its dependents' input (files.go)
	fatal    string                       // guarded by mu: why the flow fails
	ended    bool                         // guarded by mu
	timer    *time.Timer                  // guarded by mu
	remote   map[string]*remoteTrack      // guarded by mu
	stops    []string                     // guarded by mu: nodes to stop once mu is released

	comps        []string          // compensation nodes, file order (compensate.go)
	compensating bool              // guarded by mu
	compErrs     map[string]string // guarded by mu: compensation node → why it failed
	compEnd      model.Hash        // guarded by mu: the outcome, once none runs
}

// newRun builds a flowRun from what the store holds.
func newRun(g *store.FlowGraph) (*flowRun, error) {
	f := g.Flow
	r := &flowRun{key: runKey{f.ContextID, f.ID}, caller: f.CallerID, env: f.EnvVars,
		nodes: map[string]*node{}, status: f.Status, state: map[string]model.NodeState{},
		results: map[string]map[string]string{}, fatal: f.Extra[fError], remote: map[string]*remoteTrack{},
		onFailure: flowfile.OnFailure(f.Extra[fOnFailure]), compErrs: map[string]string{},
		compensating: f.Extra[fCompensation] == Compensating, trace: f.TraceID()}
	if r.onFailure != flowfile.OnFailureStop {
		r.onFailure = flowfile.OnFailureWait
	}
	r.timeout = time.Duration(atoi(f.Extra[fTimeout])) * time.Second
	if ms := atoi(f.Extra[fDeadline]); ms > 0 {
		r.deadline = time.UnixMilli(ms)
	}
	if err := r.addNodes(f, g.Jobs); err != nil {
		return nil, err
	}
	for name := range r.nodes {
		r.state[name] = model.NodeState(g.Nodes[name])
		if r.state[name] == "" {
			r.state[name] = model.NodePending
		}
	}
	r.addCompNodes(g.Jobs, g.Nodes)
	r.loadResults(g.Results)
	r.loadMade(g.Jobs) // files.go
	return r, nil
}

// addNodes fills nodes and their edges from the job hashes.
func (r *flowRun) addNodes(f *model.Flow, jobs []*model.RunnerJob) error {
	byID := map[uint64]string{}
	for i, j := range jobs {
		if j == nil {
			return fmt.Errorf("flow %d: job %s is missing", f.ID, store.JobKey(f.CallerID, f.Jobs[i]))
		}
		n := &node{name: j.Name, key: store.JobKey(j.CallerID, j.ID), job: j,
			cont: j.Extra[fContinue] == "true", pin: j.Runner}
		if p, ok := j.Extra[fPin]; ok {
			n.pin = p
		}
		r.nodes[n.name] = n
		r.order = append(r.order, n.name)
		byID[j.ID] = n.name
		if m := j.Extra[fMessage]; m != "" && j.Status != "" && !j.Status.Terminal() {
			r.remote[n.name] = &remoteTrack{peer: peerOf(j.Runner), msgKey: m}
		}
	}
	for _, j := range jobs {
		n := r.nodes[j.Name]
		for _, id := range j.Upstream() {
			need, ok := byID[id]
			if !ok {
				return fmt.Errorf("flow %d: job %q needs job id %d, not in the flow", f.ID, j.Name, id)
			}
			n.needs = append(n.needs, need)
			r.nodes[need].deps = append(r.nodes[need].deps, n.name)
		}
	}
	return nil
}

func (r *flowRun) loadResults(h map[string]string) {
	for k, v := range h {
		job, key, ok := strings.Cut(k, ".")
		if !ok {
			continue
		}
		if r.results[job] == nil {
			r.results[job] = map[string]string{}
		}
		r.results[job][key] = v
	}
}

// peerOf returns runner when it names a peer (not self, not runner:<id>).
func peerOf(runner string) string {
	if runner == "" || runner == "self" || strings.HasPrefix(runner, "runner:") {
		return ""
	}
	return runner
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// satisfied reports whether a node in state st lets its dependents run.
func (r *flowRun) satisfied(name string, st model.NodeState) bool {
	return st == model.NodeCompleted || (st == model.NodeFailed && r.nodes[name].cont)
}

// readyAfter lists the pending dependents of name that become ready once
// name is in state st (caller holds mu).
func (r *flowRun) readyAfter(name string, st model.NodeState) []string {
	var out []string
	for _, d := range r.nodes[name].deps {
		if r.state[d] != model.NodePending {
			continue
		}
		ok := true
		for _, need := range r.nodes[d].needs {
			s := r.state[need]
			if need == name {
				s = st
			}
			ok = ok && r.satisfied(need, s)
		}
		if ok {
			out = append(out, d)
		}
	}
	return out
}

// descendants lists every job that depends on name, directly or not.
func (r *flowRun) descendants(name string) []string {
	seen := map[string]bool{}
	queue := append([]string(nil), r.nodes[name].deps...)
	var out []string
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
		queue = append(queue, r.nodes[d].deps...)
	}
	return out
}

// inState lists the nodes (file order) whose state is one of states.
func (r *flowRun) inState(states ...model.NodeState) []string {
	var out []string
	for _, name := range r.order {
		for _, s := range states {
			if r.state[name] == s {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// allEnded reports whether every node is terminal (caller holds mu).
func (r *flowRun) allEnded() bool {
	for _, st := range r.state {
		if !st.Terminal() {
			return false
		}
	}
	return true
}

// applyMoves records in the cache the moves the store applied.
func (r *flowRun) applyMoves(moves []store.NodeMove, moved []string) {
	did := make(map[string]bool, len(moved))
	for _, m := range moved {
		did[m] = true
	}
	for _, m := range moves {
		if did[m.Name] {
			r.state[m.Name] = model.NodeState(m.To)
			if !model.NodeState(m.To).InFlight() {
				delete(r.remote, m.Name)
			}
		}
	}
}

// takeStops returns and clears the nodes waiting to be stopped.
func (r *flowRun) takeStops() []string {
	s := r.stops
	r.stops = nil
	return s
}
