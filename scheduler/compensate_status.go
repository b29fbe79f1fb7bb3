package scheduler

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// CompState is how a job's compensation went (JobState.Compensation).
type CompState struct {
	Key     string            `json:"key"`
	State   model.NodeState   `json:"state"`
	Status  model.JobStatus   `json:"status,omitempty"`
	Attempt int64             `json:"attempt"`
	Error   string            `json:"error,omitempty"`
	Result  map[string]string `json:"result,omitempty"`
}

// addCompStates fills in the compensations of a flow that compensated or
// compensates: the flow's outcome, and each job's compensation with its
// job hash (one round trip).
func (s *Scheduler) addCompStates(ctx context.Context, g *store.FlowGraph, st *Status) error {
	st.Compensation = g.Flow.Extra[fCompensation]
	st.CompensationError = g.Flow.Extra[fCompError]
	var idx []int
	var keys []string
	for i, j := range st.Jobs {
		if _, ok := g.Nodes[j.Name+compSuffix]; ok {
			idx = append(idx, i)
			keys = append(keys, compKeyOf(g, j.Name))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	jobs, err := s.st.Flows.LoadJobKeys(ctx, g.Flow.ContextID, keys)
	if err != nil {
		return err
	}
	for n, i := range idx {
		c := &CompState{Key: keys[n], State: model.NodeState(g.Nodes[st.Jobs[i].Name+compSuffix])}
		if j := jobs[n]; j != nil {
			c.Status, c.Attempt, c.Error, c.Result = j.Status, j.Attempt, j.Error, j.Result
		}
		st.Jobs[i].Compensation = c
	}
	return nil
}

// compKeyOf is the compensation job key of the flow's job name.
func compKeyOf(g *store.FlowGraph, name string) string {
	for _, j := range g.Jobs {
		if j != nil && j.Name == name {
			return j.Extra[fCompKey]
		}
	}
	return ""
}
