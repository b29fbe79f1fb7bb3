package lifecycle

import (
	"context"
	"fmt"
)

// Stop begins stopping: Go and Enter refuse from now on, the group's
// context is cancelled and Done is closed. It reports whether this call
// began it (false for every later call). A component with steps between
// refusing work and waiting for it (flushes, timers) calls Stop, takes
// them, then Wait.
func (g *Group) Stop() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping {
		return false
	}
	g.stopping = true
	if g.cancel != nil {
		g.cancel()
	}
	close(g.doneLocked())
	return true
}

// Wait stops the group (if Stop was not called yet) and waits for its
// goroutines and work, or for ctx. When ctx ends first it returns an
// error wrapping ctx.Err() that says how many are still running; they
// carry on and end on their own.
func (g *Group) Wait(ctx context.Context) error {
	g.Stop()
	done := make(chan struct{})
	go func() {
		g.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("lifecycle: %d goroutines still running: %w", g.n.Load(), ctx.Err())
	}
}

// Shutdown is Stop then Wait(ctx). It is safe to call more than once: a
// later call returns the first call's result, or nil at once while the
// first call still waits.
func (g *Group) Shutdown(ctx context.Context) error {
	g.mu.Lock()
	if g.shut {
		over, err := g.shutOver, g.shutErr
		g.mu.Unlock()
		if over {
			return err
		}
		return nil
	}
	g.shut = true
	g.mu.Unlock()
	err := g.Wait(ctx)
	g.mu.Lock()
	g.shutOver, g.shutErr = true, err
	g.mu.Unlock()
	return err
}
