package control

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerJobStopMethods() {
	api.Register(h.table, "job.stop", "Stop a running or queued job, here or on the agent running it.",
		func(ctx context.Context, p wire.JobRef) (map[string]string, error) {
			j, err := h.jobLoad(ctx, p)
			if err != nil {
				return nil, err
			}
			if model.JobStatus(j.Status).Terminal() {
				return nil, api.Errorf(api.CodeConflict, "job %s already ended (%s)", p.Key, j.Status)
			}
			return h.Stopper.Stop(ctx, p.Context, p.Key, j.Runner)
		})
}
