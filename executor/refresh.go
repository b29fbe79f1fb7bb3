package executor

import (
	"context"
	"time"
)

// Refresh serves contexts that appeared since the last periodic refresh,
// now (the node calls it when a context is created).
func (r *Runner) Refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.refreshContexts(ctx); err != nil {
		r.log.Debug("executor: refresh", "err", err)
	}
}
