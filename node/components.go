package node

import (
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/overlay/bridge"
)

// startComponents starts runner, overlay, bridge and scheduler as the
// configured roles ask.
func (n *Node) startComponents(ctx context.Context) error {
	if bus := n.cfg.Bus; bus.Plain || len(bus.PlainOnly) > 0 {
		n.log.Info("bus: shortcuts off, the plain path", "all", bus.Plain, "only", bus.PlainOnly)
	}
	if n.cfg.Bus.Off("idblocks") {
		n.store.SetIDBlock(1) // before anything takes ids from a block
	}
	if err := n.startTracing(ctx); err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	if err := n.openFiles(ctx); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if n.cfg.HasRole("runner") {
		if err := n.startRunner(ctx); err != nil {
			return fmt.Errorf("runner: %w", err)
		}
	}
	if err := n.startOverlay(ctx); err != nil {
		return fmt.Errorf("overlay: %w", err)
	}
	if err := n.serveFiles(ctx); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	if err := n.startBridge(ctx); err != nil {
		return fmt.Errorf("bridge: %w", err)
	}
	n.stopper = &bridge.Stopper{Store: bridgeStore(n.store), Bridge: n.bridge, Self: n.self,
		PeerID: n.id.PeerID().String(), StopLocal: n.stopLocal}
	if n.cfg.HasRole("supervisor") {
		if err := n.startScheduler(ctx); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	if err := n.startTimers(ctx); err != nil {
		return fmt.Errorf("timers: %w", err)
	}
	if err := n.startJanitor(ctx); err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	return nil
}

// startJanitor starts the retention sweeps, whatever the roles: every
// agent keeps jobs, flows or messages that end.
func (n *Node) startJanitor(ctx context.Context) error {
	r := n.cfg.Retention
	j, err := retention.New(retention.Config{
		DataDir: n.cfg.DataDir, MaxAge: r.MaxAge, MaxJobs: r.MaxJobs, MaxFlows: r.MaxFlows,
		MaxMessages: r.MaxMessages, Interval: r.Interval, Off: r.Enabled != nil && !*r.Enabled,
		Contexts: n.contextIDs, OnPruned: n.filesPruned,
	}, janitorStore(n.store), n.log.With("part", "retention"))
	if err != nil {
		return err
	}
	if err := j.Start(ctx); err != nil {
		return err
	}
	if n.runner != nil && (r.Enabled == nil || *r.Enabled) {
		n.runner.OnJobDone(countEnds(j)) // a busy runner's jobs are swept as they pile up
	}
	n.janitor = j
	n.parts.janitor = part{"retention", j.Shutdown}
	return nil
}

// endCounter hears of each job that ends here, by its context alone
// (retention's Janitor, which sweeps a context early once enough did).
type endCounter interface{ Ended(ctxID uint64) }

// countEnds adapts c to a runner's OnJobDone hook.
func countEnds(c endCounter) func(uint64, *model.RunnerJob) {
	return func(ctxID uint64, _ *model.RunnerJob) { c.Ended(ctxID) }
}

func (n *Node) startRunner(ctx context.Context) error {
	r, err := executor.New(executor.Config{
		DataDir:        n.cfg.DataDir,
		Concurrency:    n.cfg.Runner.Concurrency,
		DefaultTimeout: n.cfg.Runner.DefaultTimeout,
		Executors:      n.cfg.Executors,
		Python:         n.cfg.Runner.Python,
		WorkerID:       n.cfg.Runner.WorkerID,
		User:           n.cfg.Runner.User,
		NoCgroups:      n.cfg.Runner.Cgroups != nil && !*n.cfg.Runner.Cgroups,
		NoChain:        n.cfg.Bus.Off("chain"),
		LogBytes:       int(n.cfg.Retention.LogBytes),
		OutputBytes:    int64(n.cfg.Retention.OutputBytes),
		RunnerID:       n.id.PeerID().String(),
		Contexts:       n.contextIDs,
		Tracer:         n.tracer,

		MaxInFlightPerContext: n.cfg.Runner.MaxInFlightPerContext,
		TypeLimits:            config.TypeLimits(n.cfg.Runner.Types),
		Contain:               n.containConfig(),
		Files:                 n.files,
	}, runnerStore(n.store), n.log.With("part", "runner"))
	if err != nil {
		return err
	}
	r.OnJobStarted(n.metrics.JobStarted)
	r.OnJobDone(n.metrics.JobDone)
	n.metrics.ServedTypes(r.ScriptTypes)
	if err := r.Start(ctx); err != nil {
		return err
	}
	n.runner = r
	n.parts.runner = part{"runner", r.Shutdown}
	return nil
}

func (n *Node) startOverlay(ctx context.Context) error {
	oc := overlay.Config{
		Listen: n.cfg.Overlay.Listen, Bootstrap: n.cfg.Overlay.Bootstrap,
		MDNS: *n.cfg.Overlay.MDNS, DHT: *n.cfg.Overlay.DHT, RelayService: n.cfg.Overlay.RelayService,
		Relays: n.cfg.Overlay.Relays, NATPortMap: *n.cfg.Overlay.NATPortMap, Reachability: n.cfg.Overlay.Reachability,
		PresenceInterval: n.cfg.Overlay.PresenceInterval, ForgetAfter: n.cfg.Overlay.ForgetAfter, NoDirect: !*n.cfg.Overlay.Direct || n.cfg.Bus.Off("direct"),
	}
	if n.cfg.Overlay.SwarmKey != "" {
		psk, err := identity.LoadSwarmKey(n.cfg.Overlay.SwarmKey)
		if err != nil {
			return err
		}
		oc.SwarmKey = psk
	}
	o, err := overlay.New(ctx, oc, n.id.PrivKey(), n.store.Registry, n.presenceInfo, n.log.With("part", "overlay"))
	if err != nil {
		return err
	}
	if err := o.Start(ctx); err != nil {
		_ = o.Shutdown(ctx)
		return err
	}
	n.overlay = o
	n.parts.overlay = part{"overlay", o.Shutdown}
	return nil
}

func (n *Node) startBridge(ctx context.Context) error {
	b, err := bridge.New(bridge.Config{
		Self: n.id, Contexts: n.contextIDs, LocalTypes: n.scriptTypes, StopLocal: n.stopLocal, Offer: n.offer(),
		TimeoutAck: n.cfg.Bus.TimeoutAck, Timeout: n.cfg.Bus.Timeout, Skew: n.cfg.Bus.Skew,
		RunnerGrace: n.cfg.Supervisor.RunnerGrace, RunnerLostAfter: n.cfg.Supervisor.RunnerLostAfter,
		Plain: n.bridgePlain(), Tracer: n.tracer, Breaker: n.breakerConfig(), FilesLists: filesLists{n.files},
	}, bridgeStore(n.store), n.overlay, n.log.With("part", "bridge"))
	if err != nil {
		return err
	}
	if n.runner != nil {
		n.runner.OnJobEnding(b.JobEnding)   // remote jobs' results go home as they end
		n.runner.OnJobStarted(b.JobStarted) // and their origins learn that they run
	}
	if err := b.Start(ctx); err != nil {
		return err
	}
	n.bridge = b
	n.parts.bridge = part{"bridge", b.Shutdown}
	return nil
}

// presenceInfo is what the overlay announces about this agent.
func (n *Node) presenceInfo() overlay.Info {
	info := overlay.Info{Roles: n.cfg.Roles, Version: Version, ScriptTypes: n.scriptTypes()}
	if n.runner != nil {
		running, capacity := n.runner.Load()
		info.Load, info.Capacity = int64(running), int64(capacity)
	}
	return info
}

// contextsChanged tells components that the set of contexts changed.
func (n *Node) contextsChanged() {
	n.ctxCache.forget()
	if n.bridge != nil {
		n.bridge.Kick()
	}
	if n.runner != nil {
		n.runner.Refresh()
	}
	if n.sched != nil {
		n.sched.Refresh()
	}
	if n.timers != nil {
		n.timers.Refresh()
	}
}

func (n *Node) scriptTypes() []string {
	if n.runner == nil {
		return []string{}
	}
	return n.runner.ScriptTypes()
}

func (n *Node) stopLocal(ctx context.Context, ctxID uint64, jobKey string) error {
	if n.runner == nil {
		return fmt.Errorf("this agent has no runner role")
	}
	return n.runner.Stop(ctx, ctxID, jobKey)
}

// offer is the runner's Offer for the bridge, or nil without a runner or
// with the offer shortcut off (bus.plain: a received job is queued, and
// the runner's loop claims it).
func (n *Node) offer() func(uint64) (store.ClaimSpec, func(*store.Claim), bool) {
	if n.runner == nil || n.cfg.Bus.Off("offer") {
		return nil
	}
	return n.runner.Offer
}

// bridgePlain is which of the bridge's shortcuts the config turns off.
func (n *Node) bridgePlain() bridge.Plain {
	off := n.cfg.Bus.Off
	return bridge.Plain{Submit: off("submit"), Overlap: off("overlap"), Early: off("early"), Acks: off("acks"),
		Replay: off("replay"), Caches: off("caches"), Pair: off("pair")}
}

// containConfig is runner.isolation for the runner; the config file is
// hidden from contained jobs wherever it lives.
func (n *Node) containConfig() executor.Contain {
	iso := n.cfg.Runner.Isolation
	c := executor.Contain{Own: iso.Own, Remote: iso.Remote, User: iso.User, PidsMax: iso.PidsMax}
	if n.cfg.File != "" {
		c.Hide = append(c.Hide, n.cfg.File)
	}
	return c
}
