package node

import (
	"context"
	"net"
	"net/url"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/control"
)

// logHostIsolation warns once, at start, of each context an admin opted
// out of containment (isolation host, hyphae context set): its jobs from
// other actors run on this machine as the agent's user (docs/design.md, "Running jobs", "logged
// at start"). It reads each context's own record, as the runner does.
func (n *Node) logHostIsolation(ctx context.Context) {
	if n.runner == nil {
		return // no runner: no job runs here
	}
	ids, err := n.store.Registry.ContextIDs(ctx)
	if err != nil {
		n.log.Warn("contexts: cannot list them to check their isolation", "err", err)
		return
	}
	for _, id := range ids {
		c, err := n.store.Registry.LoadContext(ctx, id)
		if err != nil {
			continue // not served (refused or unreadable): it runs no job
		}
		if c.Isolation() == model.IsolationHost {
			n.log.Warn(control.HostIsolationWarning(id), "context", id, "network", c.Network())
		}
	}
}

// logReachableStore warns when contained jobs, which keep the network,
// could reach this agent's store: a Redis on a loopback TCP port with no
// password (docs/design.md, "Contained jobs" lists it among what a contained job can reach).
func (n *Node) logReachableStore() {
	if n.runner == nil || n.cfg.Runner.Isolation.Remote == model.IsolationHost {
		return
	}
	u, err := url.Parse(n.cfg.Redis.URL)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.User != nil && hasPassword(u.User) {
		return
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() == "localhost" || ip != nil && ip.IsLoopback() {
		n.log.Warn("store: contained jobs keep the network and can reach this Redis on loopback, which has no password; "+
			"give it one (redis.url redis://:PASSWORD@…), use a unix socket (redis.url unix://…), or run such jobs with network none",
			"redis", u.Redacted())
	}
}

func hasPassword(u *url.Userinfo) bool {
	p, ok := u.Password()
	return ok && p != ""
}
