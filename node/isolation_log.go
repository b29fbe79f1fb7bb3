package node

import (
	"context"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/control"
)

// logHostIsolation warns once, at start, of each context an admin opted
// out of containment (isolation host, hyphae context set): its jobs from
// other actors run on this machine as the agent's user (DESIGN §5, "logged
// at start"). It reads each context's own record, as the runner does.
func (n *Node) logHostIsolation(ctx context.Context) {
	if n.runner == nil {
		return // no runner: no job runs here
	}
	ids, err := n.store.ContextIDs(ctx)
	if err != nil {
		n.log.Warn("contexts: cannot list them to check their isolation", "err", err)
		return
	}
	for _, id := range ids {
		c, err := n.store.LoadContext(ctx, id)
		if err != nil {
			continue // not served (refused or unreadable): it runs no job
		}
		if c.Isolation() == model.IsolationHost {
			n.log.Warn(control.HostIsolationWarning(id), "context", id, "network", c.Network())
		}
	}
}
