package node

import (
	"context"

	"github.com/hyphae-run/hyphae/node/api"
)

func (n *Node) registerDrainMethods() {
	api.Register(n.table, "node.drain", "Drain and stop the agent: no new work, running jobs finish (bounded), outbox flushed, exit 0.",
		func(context.Context, struct{}) (map[string]any, error) {
			n.draining.Store(true)
			n.Drain()
			return map[string]any{"draining": true, "grace_seconds": int64(n.cfg.Runner.DrainGrace.Seconds())}, nil
		})
}
