package scheduler

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// Summary is one line of List.
type Summary struct {
	ID        uint64           `json:"id"`
	ContextID uint64           `json:"context_id"`
	Name      string           `json:"name"`
	Status    model.FlowStatus `json:"status"`
	Error     string           `json:"error,omitempty"`
	Progress  Progress         `json:"progress"`
	CreatedAt int64            `json:"created_at"`
	UpdatedAt int64            `json:"updated_at"`
}

// List returns the flows of a context, oldest first, with job counts:
// the flow's own jobs, as Status counts them (a compensation is not one).
func (s *Scheduler) List(ctx context.Context, ctxID uint64) ([]Summary, error) {
	fs, err := s.st.Flows.ListFlows(ctx, ctxID)
	if err != nil {
		return nil, fmt.Errorf("scheduler.List: %w", err)
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].ID < fs[j].ID })
	out := make([]Summary, 0, len(fs))
	for _, f := range fs {
		nodes, err := s.st.Flows.FlowNodes(ctx, ctxID, f.ID)
		if err != nil {
			return nil, fmt.Errorf("scheduler.List: %w", err)
		}
		sum := Summary{ID: f.ID, ContextID: f.ContextID, Name: f.Name, Status: f.Status,
			Error: f.Extra[fError], CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
		for name, st := range nodes {
			if !strings.HasSuffix(name, compSuffix) { // shown on its job, as Status does
				sum.Progress.add(model.NodeState(st))
			}
		}
		out = append(out, sum)
	}
	return out, nil
}
