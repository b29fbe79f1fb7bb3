package node

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// part is the handle of one started component: its name, for the log,
// and its shutdown. The zero part was never started; stop clears a part's
// shutdown, so that each runs at most once.
type part struct {
	name     string
	shutdown func(context.Context) error
}

// parts holds the handle of each component, in start order. A part whose
// role is off, or whose start was not reached, stays zero.
type parts struct {
	redis, store, runner, overlay, bridge, sched, timers, janitor, api, tracer part
}

// Shutdown drains and stops the agent; it is safe to call more than once
// (later calls return the first one's error). Order: refuse new work;
// stop the retention sweeps and the scheduler; let running jobs finish
// within the drain grace (then they end "error: drained" and are requeued
// where retries allow) and stop the runner; give the outbox until the
// grace ends to be acknowledged; then stop the rest in reverse start
// order: the API, the bridge, the overlay (leaving the network), the
// store, the embedded Redis.
func (n *Node) Shutdown(ctx context.Context) error {
	n.shutdownOnce.Do(func() {
		n.draining.Store(true)
		n.ready.Store(false)
		if n.runner != nil || n.bridge != nil {
			n.log.Info("draining", "grace", n.cfg.Runner.DrainGrace)
		} else {
			n.log.Info("stopping") // nothing started that could drain (a refused start)
		}
		grace, cancel := context.WithTimeout(ctx, drainGrace(ctx, n.cfg.Runner.DrainGrace))
		defer cancel()
		n.stop(ctx, &n.parts.janitor)
		n.stop(ctx, &n.parts.timers)
		n.stop(ctx, &n.parts.sched)
		n.stopRunner(ctx, grace)
		if n.bridge != nil {
			n.bridge.Flush(grace)
		}
		for _, p := range []*part{&n.parts.api, &n.parts.bridge, &n.parts.overlay, &n.parts.tracer, &n.parts.store, &n.parts.redis} {
			n.stop(ctx, p)
		}
		n.log.Info("agent stopped")
	})
	return n.shutdownErr
}

// drainGrace is how long jobs and the outbox get at shutdown: the
// configured grace, cut short so that a quarter of ctx's time (up to 10 s)
// is left for stopping the parts after it.
func drainGrace(ctx context.Context, configured time.Duration) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return configured
	}
	left := time.Until(dl)
	return max(0, min(configured, left-min(left/4, 10*time.Second)))
}

// stopRunner stops the runner within the drain grace. Jobs killed because
// the grace ran out (they end "error: drained", requeued where retries
// allow) are the drain working as designed, not a failed shutdown: logged,
// not returned, while ctx itself has time left.
func (n *Node) stopRunner(ctx, grace context.Context) {
	shutdown := n.parts.runner.shutdown
	if shutdown == nil {
		return
	}
	n.parts.runner.shutdown = func(grace context.Context) error {
		err := shutdown(grace)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			n.log.Info("drain grace over", "part", "runner", "err", err)
			return nil
		}
		return err
	}
	n.stop(grace, &n.parts.runner)
}

// stop shuts part p down, if it started and was not stopped yet; the
// first error is the one Shutdown returns.
func (n *Node) stop(ctx context.Context, p *part) {
	shutdown := p.shutdown
	if shutdown == nil {
		return
	}
	p.shutdown = nil
	if err := shutdown(ctx); err != nil {
		n.log.Warn("shutdown", "part", p.name, "err", err)
		if n.shutdownErr == nil {
			n.shutdownErr = fmt.Errorf("shutdown %s: %w", p.name, err)
		}
	}
}

// Drain asks a running agent to drain and stop (as SIGTERM does); Run
// returns once it has.
func (n *Node) Drain() {
	n.drainOnce.Do(func() { close(n.drainCh) })
}
