// Package lifecycle is the start/stop skeleton the agent's long-running
// parts (bridge, scheduler, runner, overlay) share: one context that ends
// when stopping begins, and a count of the goroutines and pieces of work
// that stopping waits for.
//
// A Group follows nats-server's startGoRoutine guard and idempotent
// Shutdown: Go refuses to start a goroutine once Stop has begun, so the
// wait never races a late Add; Shutdown may be called twice, the second
// call returning the first one's result (or nil while it still runs).
//
// A part whose goroutines may start before its own Start (a subscriber,
// a timer, a host built in New) starts its Group in its constructor; the
// Group only knows started, stopping and stopped.
package lifecycle

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

var (
	// ErrStarted: Start was called before.
	ErrStarted = errors.New("lifecycle: already started")
	// ErrStopped: Stop (or Shutdown) was called before Start.
	ErrStopped = errors.New("lifecycle: stopped")
)

// Group is the context and the goroutines of one component. The zero
// Group is ready; it runs nothing until Start.
type Group struct {
	mu       sync.Mutex
	ctx      context.Context    // set by Start; guarded by mu
	cancel   context.CancelFunc // set by Start; guarded by mu
	started  bool               // guarded by mu
	stopping bool               // guarded by mu
	done     chan struct{}      // closed by Stop; made on first use; guarded by mu
	shut     bool               // Shutdown was called; guarded by mu
	shutOver bool               // the first Shutdown returned; guarded by mu
	shutErr  error              // what it returned; guarded by mu

	// wg counts goroutines (Go) and work (Enter); Add happens only under mu
	// while started and not stopping, so never after Wait began.
	wg sync.WaitGroup
	n  atomic.Int64 // what wg counts, for Wait's error
}

// Start makes the group's context, a child of parent that Stop cancels,
// and lets Go and Enter run. It succeeds once: ErrStarted after a Start,
// ErrStopped after a Stop.
func (g *Group) Start(parent context.Context) (context.Context, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return nil, ErrStopped
	}
	if g.started {
		return nil, ErrStarted
	}
	g.ctx, g.cancel = context.WithCancel(parent)
	g.started = true
	return g.ctx, nil
}

// Go runs f(ctx) on a goroutine that Wait waits for, ctx being the
// group's context. It reports false, and does not run f, before Start and
// once Stop has begun.
func (g *Group) Go(f func(ctx context.Context)) bool {
	ctx, ok := g.enter()
	if !ok {
		return false
	}
	go func() {
		defer g.Leave()
		f(ctx)
	}()
	return true
}

// Enter counts a piece of work done on the caller's goroutine (or handed
// to another component) among what Wait waits for, if the group is
// running; the caller calls Leave when it is over. It reports false, and
// counts nothing, before Start and once Stop has begun.
func (g *Group) Enter() bool {
	_, ok := g.enter()
	return ok
}

// Leave ends a piece of work counted by Enter.
func (g *Group) Leave() {
	g.n.Add(-1)
	g.wg.Done()
}

func (g *Group) enter() (context.Context, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.started || g.stopping {
		return nil, false
	}
	g.wg.Add(1)
	g.n.Add(1)
	return g.ctx, true
}

// Running reports whether Start was called and Stop was not.
func (g *Group) Running() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.started && !g.stopping
}

// Done is closed when Stop begins (the group's context ends then too); it
// may be waited on before Start.
func (g *Group) Done() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.doneLocked()
}

func (g *Group) doneLocked() chan struct{} {
	if g.done == nil {
		g.done = make(chan struct{})
	}
	return g.done
}
