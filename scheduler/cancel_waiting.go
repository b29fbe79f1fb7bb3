package scheduler

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
)

// endWaiting ends error the jobs of r's cancelled nodes that never
// started (status still waiting_for_prerequisites), once the flow has
// ended error (cancelled, timed out, or failed): the node state says
// cancelled, and the job hash a client reads must not wait forever. Jobs
// that wait for one of them (their dependends name it) end error in turn.
// A failure to write is logged: the flow has ended either way.
func (s *Scheduler) endWaiting(ctx context.Context, r *flowRun) {
	var keys []string
	for _, name := range r.order {
		if r.state[name] == model.NodeCancelled {
			keys = append(keys, r.nodes[name].key)
		}
	}
	reason := fmt.Sprintf(model.CancelledPrefix+"flow %d ended error: %s", r.key.id, r.fatal)
	if _, err := s.st.Jobs.EndWaitingJobs(ctx, r.key.ctx, keys, reason); err != nil {
		s.log.Warn("flow ended: waiting jobs", "context", r.key.ctx, "flow", r.key.id, "err", err)
	}
}
