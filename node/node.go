// Package node wires an agent together: identity, store (embedded Redis or
// a configured one), overlay, bridge, scheduler, runner and the control
// API (its handlers in node/control, its server in node/api). Run(ctx)
// starts everything and blocks until ctx is cancelled, then shuts down in
// the order Shutdown documents. Shutdown is safe to call twice.
package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/context/timers"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/internal/tracing"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/node/control"
	"github.com/hyphae-run/hyphae/node/embedredis"
	"github.com/hyphae-run/hyphae/node/jobfiles"
	"github.com/hyphae-run/hyphae/node/metrics"
	"github.com/hyphae-run/hyphae/node/ui"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/overlay/bridge"
	"github.com/hyphae-run/hyphae/scheduler"
)

// Node is one agent.
type Node struct {
	cfg   *config.Config
	log   *slog.Logger
	paths Paths
	id    *identity.Identity

	redis *embedredis.Server // nil when redis.url is set
	store *store.Store
	self  *model.Actor // this agent's own actor record

	runner   *executor.Runner // nil without the runner role
	overlay  *overlay.Overlay
	bridge   *bridge.Bridge
	sched    *scheduler.Scheduler // nil without the supervisor role
	janitor  *retention.Janitor   // retention sweeps and prune
	timers   *timers.Timers       // delayed jobs (and schedules) fire when due
	stopper  *bridge.Stopper      // job.stop's, shared with the scheduler
	metrics  *metrics.Metrics     // before Start: the runner counts ended jobs
	handlers *control.Handlers    // the control API's methods and endpoints
	tracer   *tracing.Tracer      // span export; nil: off (tracing.go)
	files    *jobfiles.Service    // files between jobs (files.go)
	ctxCache contextCache
	ctxWatch contextWatch // its invalidation (contexts_watch.go)
	api      *api.Server
	parts    parts // one handle per started component

	started  time.Time
	draining atomic.Bool
	ready    atomic.Bool
	apiAddr  string
	reload   func() (*wire.ReloadView, error) // re-reads the config (SetReloader); nil: not supported

	shutdownOnce sync.Once
	drainOnce    sync.Once
	drainCh      chan struct{} // closed by Drain
	shutdownErr  error
}

// New validates cfg and loads the identity; nothing is started yet.
func New(cfg *config.Config, log *slog.Logger) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	p := PathsFor(cfg.DataDir)
	id, err := identity.Load(p.Key)
	if err != nil {
		return nil, fmt.Errorf("node: %w (run `hyphae init --data-dir %s` first)", err, cfg.DataDir)
	}
	return &Node{cfg: cfg, log: log, paths: p, id: id, metrics: metrics.New(), drainCh: make(chan struct{})}, nil
}

// ID returns the agent's identity.
func (n *Node) ID() *identity.Identity { return n.id }

// Store returns the agent's store (after Start).
func (n *Node) Store() *store.Store { return n.store }

// APIAddr is the bound TCP API address ("" when off).
func (n *Node) APIAddr() string { return n.apiAddr }

// Run starts the agent and blocks until ctx is done, then shuts down.
func (n *Node) Run(ctx context.Context) error {
	if err := n.Start(ctx); err != nil {
		// A stop asked for while starting (SIGTERM) is no failure: what
		// started is drained and the agent exits as any stop does.
		stopped := ctx.Err() != nil && errors.Is(err, context.Canceled)
		grace := 10 * time.Second
		if stopped {
			grace = n.cfg.Runner.DrainGrace + 30*time.Second
		}
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		serr := n.Shutdown(sctx)
		if stopped {
			n.log.Info("stopped while starting", "during", err)
			return serr
		}
		return err
	}
	var failed error
	select {
	case <-ctx.Done():
	case <-n.drainCh:
	case <-n.storeFailed():
		// The embedded redis-server could not be brought back: stop with an
		// error, so that systemd (Restart=on-failure) restarts the agent.
		failed = fmt.Errorf("node: embedded store failed: %w", n.redis.Err())
		n.log.Error("embedded store failed; stopping the agent", "err", failed)
	}
	sctx, cancel := context.WithTimeout(context.Background(), n.cfg.Runner.DrainGrace+30*time.Second)
	defer cancel()
	return errors.Join(failed, n.Shutdown(sctx))
}

// storeFailed is closed when the embedded store gave up restarting its
// redis-server; nil (never ready) with an external store.
func (n *Node) storeFailed() <-chan struct{} {
	if n.redis == nil {
		return nil
	}
	return n.redis.Failed()
}

// Start brings every component up, in dependency order.
func (n *Node) Start(ctx context.Context) error {
	n.started = time.Now()
	if err := os.MkdirAll(n.paths.Jobs, 0o700); err != nil {
		return fmt.Errorf("node: %w", err)
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"store", n.startStore},
		{"actor", n.ensureSelf},
		{"components", n.startComponents},
		{"api", n.startAPI},
	}
	for _, s := range steps {
		if err := s.fn(ctx); err != nil {
			return fmt.Errorf("node: start %s: %w", s.name, err)
		}
	}
	n.logHostIsolation(ctx)
	n.logReachableStore()
	n.ready.Store(true)
	n.log.Info("agent running", "peer_id", n.id.PeerID().String(), "roles", n.cfg.Roles,
		"data_dir", n.cfg.DataDir, "api", n.apiAddr, "socket", n.paths.Socket, "version", Version)
	return nil
}

func (n *Node) startStore(ctx context.Context) error {
	url := n.cfg.Redis.URL
	if url == "" {
		srv, err := embedredis.Start(ctx, embedredis.Options{DataDir: n.cfg.DataDir, Databases: n.cfg.Redis.Databases, Log: n.log})
		if err != nil {
			return err
		}
		n.redis = srv
		n.parts.redis = part{"embedded redis", srv.Shutdown}
		url = srv.URL()
		n.log.Info("store: embedded", "kind", srv.Kind(), "persistent", srv.Persistent())
	}
	st, err := store.Open(ctx, url, n.log)
	if err != nil {
		return err
	}
	n.store = st
	n.parts.store = part{"store", func(context.Context) error { return st.Close() }}
	st.SetIdempotencyTTL(n.cfg.Idempotency.Retention) // docs/idempotency.md
	st.SetQuarantineAfter(n.cfg.Quarantine.AfterFailures)
	if err := n.migrateSchema(ctx); err != nil {
		return err
	}
	return n.store.SetMeta(ctx, model.Hash{"peer_id": n.id.PeerID().String(), "version": Version,
		"started_at": fmt.Sprint(n.started.Unix())})
}

// ensureSelf makes sure this agent's own actor record exists.
func (n *Node) ensureSelf(ctx context.Context) error {
	a, err := n.store.Registry.EnsureActor(ctx, n.id.PeerID().String())
	if err != nil {
		return err
	}
	n.self = a
	return nil
}

func (n *Node) startAPI(ctx context.Context) error {
	token, err := ReadToken(n.cfg.DataDir)
	if err != nil {
		return err
	}
	d := n.controlDeps()
	d.Metrics.Collect(metrics.Sources{Store: metricsStore(n.store), Bridge: d.Bridge, Overlay: d.Overlay, Runner: d.Runner,
		ScriptTypes: d.ScriptTypes, ContextIDs: d.ContextIDs, Draining: d.Draining, Files: n.fileStats})
	n.handlers = control.New(d)
	table := api.NewTable()
	n.handlers.Register(table)
	n.api = api.NewServer(table, token, control.Classify, n.log)
	n.handlers.RegisterHTTP(n.api)
	ui.Mount(n.api, n.handlers, n.log) // the dashboard at GET / (node/ui)
	n.parts.api = part{"api", n.api.Shutdown}
	if err := n.api.ListenUnixGroup(n.paths.Socket, n.cfg.API.SocketGID()); err != nil {
		return err
	}
	if n.cfg.API.Listen != "off" {
		addr, err := n.api.ListenTCP(n.cfg.API.Listen)
		if err != nil {
			return fmt.Errorf("%w (another agent on this port? set --api HOST:PORT or api.listen: off)", err)
		}
		n.apiAddr = addr.String()
	}
	return nil
}

// FrameStats counts the frames this agent sent to others by the way they
// went (direct stream or gossipsub); zero before the overlay starts.
func (n *Node) FrameStats() overlay.FrameStats {
	if n.overlay == nil {
		return overlay.FrameStats{}
	}
	return n.overlay.FrameStats()
}

// BusStats returns the bridge's message counters (zero before Start).
func (n *Node) BusStats() bridge.Snapshot {
	if n.bridge == nil {
		return bridge.Snapshot{}
	}
	return n.bridge.Stats().Snapshot()
}
