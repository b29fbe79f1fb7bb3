package node

import (
	"context"
	"net/url"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/control"
)

// controlDeps hands the started parts to the control API, with funcs for
// the state that changes while the agent runs.
func (n *Node) controlDeps() control.Deps {
	d := control.Deps{
		Cfg: n.cfg, ID: n.id, Self: n.self, Store: controlStore(n.store), Briefs: store.NewBriefCache(n.store.Jobs),
		Overlay: n.overlay, Bridge: n.bridge, Runner: n.runner, Sched: n.sched,
		Stopper: n.stopper, Metrics: n.metrics, Janitor: n.janitor, Tracer: n.tracer, Log: n.log, Files: n.files,
		Version: Version, Socket: n.paths.Socket, Started: n.started,
		StoreKind: "external", Persistent: true,
		ScriptTypes: n.scriptTypes, ContextIDs: n.contextIDs, ContextsChanged: n.contextsChanged,
		Draining: n.draining.Load, Ready: n.ready.Load, APIAddr: func() string { return n.apiAddr },
		Drain: func() {
			n.draining.Store(true) // at once: node.info says so before Run begins to drain
			n.Drain()
		},
		Reload: n.reload,
	}
	d.RedisSocket = unixSocket(n.cfg.Redis.URL)
	if n.redis != nil {
		d.StoreKind, d.Persistent = n.redis.Kind(), n.redis.Persistent()
		d.StoreHealth = n.redis.Health
		d.RedisSocket = unixSocket(n.redis.URL())
	}
	return d
}

// RunJob is the API's job.run, in process (for programs that embed an
// agent): it submits a job to this agent's runner or to another agent and,
// with p.Wait, waits for its end. Bad parameters are *api.Error values.
// The agent must have started.
func (n *Node) RunJob(ctx context.Context, p wire.JobRunParams) (*wire.JobView, error) {
	return n.handlers.RunJob(ctx, p)
}

// unixSocket is the path of a unix:// Redis URL, "" for any other.
func unixSocket(redisURL string) string {
	u, err := url.Parse(redisURL)
	if err != nil || u.Scheme != "unix" {
		return ""
	}
	return u.Path
}
