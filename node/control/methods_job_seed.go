package control

import (
	"context"

	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// seedJobCreate is job.create {context_id, job:{…}}: the job stored under
// the id its caller chose (or a new one), status dispatched unless given,
// not queued: it runs as part of a flow (flow.create, flow.start) or when
// queued by a client.
func (h *Handlers) seedJobCreate(ctx context.Context, p wire.SeedJobParams) (*wire.SeedJob, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	j, err := seedJobModel(&p.Job, "job", p.ContextID, h.Self.ID)
	if err != nil {
		return nil, err
	}
	j.SetTraceID(tracing.New())
	if err := h.Store.Jobs.CreateJob(ctx, j); err != nil {
		return nil, err
	}
	return seedJob(j), nil
}

// seedJobRun is job.run {job:{…}}: the job queued on this agent's runner
// in its context, under the id its caller chose (or a new one).
func (h *Handlers) seedJobRun(ctx context.Context, p wire.SeedJobRunParams) (*wire.SeedJob, error) {
	ctxID := p.Job.ContextID
	if ctxID == 0 {
		return nil, api.InvalidParams("job.context_id", "required: the context the job runs in")
	}
	if err := h.seedContext(ctx, ctxID); err != nil {
		return nil, err
	}
	if h.Draining() {
		return nil, api.Errorf(api.CodeUnavailable, "agent is draining: not taking new jobs")
	}
	j, err := seedJobModel(&p.Job, "job", ctxID, h.Self.ID)
	if err != nil {
		return nil, err
	}
	j.SetTraceID(tracing.New())
	if err := h.Store.Jobs.CreateQueuedJob(ctx, j); err != nil {
		return nil, err
	}
	return seedJob(j), nil
}

// seedJobLoad is job.load {context_id, caller_id, id}.
func (h *Handlers) seedJobLoad(ctx context.Context, p wire.SeedCallerRef) (*wire.SeedJob, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	j, err := h.Store.Jobs.LoadJob(ctx, p.ContextID, p.CallerID, p.ID)
	if err != nil {
		return nil, err
	}
	return seedJob(j), nil
}
