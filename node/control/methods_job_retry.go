package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerJobRetryMethods() {
	api.Register(h.table, "job.retry", "Queue a job that ended error (failed, stopped, timed out, or dead-lettered as invalid) "+
		"again as a new attempt on this agent's runner: same script, env and limits, its error cleared. "+
		"A finished job, one still queued or running, a flow's job or one sent to another agent is refused.",
		func(ctx context.Context, p wire.JobRef) (*wire.JobView, error) {
			return h.retryJob(ctx, p)
		})
}

// retryJob re-queues job p as its next attempt (store.RetryJob).
func (h *Handlers) retryJob(ctx context.Context, p wire.JobRef) (*wire.JobView, error) {
	j, err := h.jobLoad(ctx, p)
	if err != nil {
		return nil, err
	}
	switch {
	case j.Status != string(model.JobError):
		return nil, api.Errorf(api.CodeConflict, "job %s is %s: only a job that ended error can be retried", p.Key, j.Status)
	case j.FlowID != 0:
		return nil, api.Errorf(api.CodeConflict, "job %s belongs to flow %d: run the flow again", p.Key, j.FlowID)
	case j.Runner != "" && j.Runner != h.ID.PeerID().String():
		return nil, api.Errorf(api.CodeConflict, "job %s ran on %s: submit it again there with hyphae job run --to", p.Key, j.Runner)
	case h.Draining():
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new jobs")
	}
	if _, err := h.Store.Jobs.RetryJob(ctx, p.Context, p.Key, j.Type, j.Attempt); err != nil {
		return nil, err
	}
	return h.jobLoad(ctx, p)
}
