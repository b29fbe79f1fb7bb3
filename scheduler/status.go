package scheduler

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Status is a flow as a person or a script wants to see it.
type Status struct {
	ID        uint64            `json:"id"`
	ContextID uint64            `json:"context_id"`
	CallerID  uint64            `json:"caller_id"`
	Name      string            `json:"name"`
	Status    model.FlowStatus  `json:"status"`
	Error     string            `json:"error"`
	Result    map[string]string `json:"result"`
	OnFailure string            `json:"on_failure"`
	Timeout   int64             `json:"timeout"` // seconds, 0 = none
	CreatedAt int64             `json:"created_at"`
	StartedAt int64             `json:"started_at,omitempty"`
	EndedAt   int64             `json:"ended_at,omitempty"`
	Jobs      []JobState        `json:"jobs"` // topological order
	Progress  Progress          `json:"progress"`
	Version   string            `json:"version"` // changes whenever anything shown changes
	// Compensation is compensating, compensated or compensation_failed
	// once the flow undoes its finished jobs (compensate.go); "" before.
	Compensation      string      `json:"compensation,omitempty"`
	CompensationError string      `json:"compensation_error,omitempty"`
	Flow              *model.Flow `json:"-"`
	// TraceID is the flow's W3C traceparent, shared by its jobs.
	TraceID string `json:"trace_id,omitempty"`
	// CorrelationID and EventID: of the event that started the flow
	// (starters/trigger.go); "" for a flow started otherwise.
	CorrelationID string `json:"correlation_id,omitempty"`
	EventID       string `json:"event_id,omitempty"`
}

// JobState is one job of a flow.
type JobState struct {
	Name            string            `json:"name"`
	Key             string            `json:"key"`
	State           model.NodeState   `json:"state"`
	Status          model.JobStatus   `json:"status"` // the job hash's own status
	Type            string            `json:"script_type"`
	Runner          string            `json:"runner,omitempty"`
	Attempt         int64             `json:"attempt"`
	Retries         int64             `json:"retries"`
	Duration        int64             `json:"duration_seconds"`
	Result          map[string]string `json:"result"`
	Error           string            `json:"error"`
	Needs           []string          `json:"needs"`
	Depth           int               `json:"depth"`
	ContinueOnError bool              `json:"continue_on_error,omitempty"`
	Compensation    *CompState        `json:"compensation,omitempty"` // its compensation, once it runs
	// ReusedFrom is the earlier run's job whose result this rerun reused
	// (the job did not run again); "" for a job that ran.
	ReusedFrom string `json:"reused_from,omitempty"`
}

// Progress counts jobs by state; Done = completed + failed + cancelled.
// Unknown counts jobs in flight whose agent is unreachable (shown in none
// of dispatched or running).
type Progress struct {
	Total      int `json:"total"`
	Pending    int `json:"pending"`
	Ready      int `json:"ready"`
	Dispatched int `json:"dispatched"`
	Running    int `json:"running"`
	Completed  int `json:"completed"`
	Failed     int `json:"failed"`
	Cancelled  int `json:"cancelled"`
	Unknown    int `json:"unknown"` // in flight on an agent that is unreachable
	Done       int `json:"done"`
}

// Terminal reports whether the flow has ended.
func (st *Status) Terminal() bool { return st.Status.Terminal() }

// Status reads a flow and its jobs from Redis.
func (s *Scheduler) Status(ctx context.Context, ctxID, flowID uint64) (*Status, error) {
	g, err := s.st.Flows.LoadFlowGraph(ctx, ctxID, flowID)
	if err != nil {
		return nil, fmt.Errorf("scheduler.Status: %w", err)
	}
	st := s.statusOf(g)
	if err := s.addCompStates(ctx, g, st); err != nil {
		return nil, fmt.Errorf("scheduler.Status: %w", err)
	}
	st.Version = version(st)
	return st, nil
}

func (s *Scheduler) statusOf(g *store.FlowGraph) *Status {
	f := g.Flow
	st := &Status{ID: f.ID, ContextID: f.ContextID, CallerID: f.CallerID, Name: f.Name, Status: f.Status,
		Error: f.Extra[fError], Result: f.Result, OnFailure: f.Extra[fOnFailure], Timeout: atoi(f.Extra[fTimeout]),
		CreatedAt: f.CreatedAt, StartedAt: atoi(f.Extra[fStartedAt]), EndedAt: atoi(f.Extra[fEndedAt]), Flow: f,
		TraceID: f.TraceID(), CorrelationID: f.Extra[fCorrID], EventID: f.Extra[fEventID]}
	if !f.Status.Terminal() || st.Result == nil {
		st.Result = g.Results
	}
	st.Jobs = s.jobStates(g)
	for _, j := range st.Jobs {
		st.Progress.add(j.State)
	}
	st.Version = version(st)
	return st
}

// jobStates lists the flow's jobs in topological order.
func (s *Scheduler) jobStates(g *store.FlowGraph) []JobState {
	byID := map[uint64]string{}
	for _, j := range g.Jobs {
		if j != nil {
			byID[j.ID] = j.Name
		}
	}
	out := make([]JobState, 0, len(g.Jobs))
	for _, j := range g.Jobs {
		if j != nil {
			out = append(out, s.jobState(j, model.NodeState(g.Nodes[j.Name]), byID))
		}
	}
	return topoSort(out)
}

func (s *Scheduler) jobState(j *model.RunnerJob, st model.NodeState, byID map[uint64]string) JobState {
	if st == "" {
		st = model.NodePending
	}
	// Shown as running from the moment the runner starts it until the
	// scheduler has taken in its end (so a view never steps back to
	// dispatched between the job's end and the node's).
	if st == model.NodeDispatched && (j.Status == model.JobStarted || j.Status.Terminal()) {
		st = model.NodeRunning
	}
	// Unknown while the agent it went to is unreachable: it may be
	// running or done there (the stored state stays dispatched).
	if _, away := j.Unreachable(); away && st.InFlight() {
		st = model.NodeUnknown
	}
	js := JobState{Name: j.Name, Key: store.JobKey(j.CallerID, j.ID), State: st, Status: j.Status,
		Type: j.ScriptType, Runner: j.Runner, Attempt: j.Attempt, Retries: j.Retries, Result: j.Result,
		Error: j.Error, ContinueOnError: j.Extra[fContinue] == "true", Needs: []string{}, ReusedFrom: j.Extra[fReusedFrom]}
	if js.Result == nil {
		js.Result = map[string]string{}
	}
	for _, id := range j.Upstream() {
		js.Needs = append(js.Needs, byID[id])
	}
	if start := atoi(j.Extra[fDispatchedAt]); start > 0 && st != model.NodePending && st != model.NodeReady {
		end := s.cfg.Now().Unix()
		if j.Status.Terminal() {
			end = j.UpdatedAt
		}
		js.Duration = max(0, end-start)
	}
	return js
}

func (p *Progress) add(st model.NodeState) {
	p.Total++
	switch st {
	case model.NodePending:
		p.Pending++
	case model.NodeReady:
		p.Ready++
	case model.NodeDispatched:
		p.Dispatched++
	case model.NodeRunning:
		p.Running++
	case model.NodeCompleted:
		p.Completed++
	case model.NodeFailed:
		p.Failed++
	case model.NodeCancelled:
		p.Cancelled++
	case model.NodeUnknown:
		p.Unknown++
	}
	p.Done = p.Completed + p.Failed + p.Cancelled
}

// version fingerprints what a watcher shows: flow status and each job's
// state, attempt and status.
func version(st *Status) string {
	h := fnv.New64a()
	fmt.Fprint(h, st.Status, "|", st.Error, "|", st.Compensation)
	for _, j := range st.Jobs {
		fmt.Fprint(h, "|", j.Name, ":", j.State, ":", j.Attempt, ":", j.Status)
		if c := j.Compensation; c != nil {
			fmt.Fprint(h, ":", c.State, ":", c.Attempt, ":", c.Status)
		}
	}
	return strconv.FormatUint(h.Sum64(), 36)
}
