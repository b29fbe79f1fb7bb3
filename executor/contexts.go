package executor

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// refreshLoop keeps the set of served contexts in line with cfg.Contexts
// and re-checks that keyspace notifications are still on (a restarted
// Redis forgets CONFIG SET).
func (r *Runner) refreshLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.ContextRefresh)
	defer t.Stop()
	checked := time.Now()
	for {
		select {
		case <-ctx.Done():
			r.stopAllContexts()
			return
		case <-t.C:
		}
		if r.eventsDue(&checked) { // refresh.go
			r.enableEvents(ctx)
		}
		if err := r.refreshContexts(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("executor: list contexts", "err", err)
		}
	}
}

// refreshOnce starts a dequeue loop for each new context and stops the
// loops of contexts no longer listed (their running jobs carry on). Only
// refreshContexts calls it, one call at a time.
func (r *Runner) refreshOnce(ctx context.Context) error {
	ids, err := r.cfg.Contexts(ctx)
	if err != nil {
		return fmt.Errorf("list contexts: %w", err)
	}
	want := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		if err := r.st.Registry.CheckContextID(id); err != nil {
			r.log.Warn("executor: context not served", "context", id, "err", err)
			continue
		}
		want[id] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping {
		return nil
	}
	for id, sc := range r.contexts {
		if !want[id] {
			sc.cancel()
			delete(r.contexts, id)
		}
	}
	for id := range want {
		if _, ok := r.contexts[id]; !ok {
			r.contexts[id] = r.startContext(id)
		}
	}
	return nil
}

// startContext launches the dequeue loop of one context; mu is held.
func (r *Runner) startContext(id uint64) *servedContext {
	ctx, cancel := context.WithCancel(r.intake)
	sc := &servedContext{ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1)}
	r.intakeWork.Go(func(context.Context) { r.serveContext(ctx, id, sc) })
	r.log.Debug("executor: serving context", "context", id)
	return sc
}

func (r *Runner) stopAllContexts() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, sc := range r.contexts {
		sc.cancel()
		delete(r.contexts, id)
	}
}

// servedIDs returns the contexts being served.
func (r *Runner) servedIDs() []uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.contexts))
}

// pushed notes a push to queue:<t> of context id and wakes its loop.
func (r *Runner) pushed(id uint64, t string) {
	r.mu.Lock()
	sc := r.contexts[id]
	r.mu.Unlock()
	if sc != nil {
		sc.hints.pushed(t)
		signal(sc.wake)
	}
}

// signal sends on a 1-buffered channel without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
