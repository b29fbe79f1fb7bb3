package timers

import (
	"context"
	"time"
)

// Refresh makes the timers read the agent's contexts again: a goroutine
// starts for each new context, those of contexts that are gone stop.
func (t *Timers) Refresh() {
	select {
	case t.refresh <- struct{}{}:
	default: // a refresh is pending already
	}
}

// refresher applies the contexts at start, on Refresh and every MaxSleep;
// a failed listing (Redis away) is tried again a second later.
func (t *Timers) refresher(ctx context.Context) {
	for {
		wait := t.cfg.MaxSleep
		if err := t.applyContexts(ctx); err != nil {
			if ctx.Err() == nil {
				t.log.Warn("timers: list contexts", "err", err)
			}
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-t.refresh:
		case <-time.After(wait):
		}
	}
}

func (t *Timers) applyContexts(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ids, err := t.cfg.Contexts(lctx)
	if err != nil {
		return err
	}
	keep := make(map[uint64]bool, len(ids))
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		keep[id] = true
		if t.loops[id] == nil {
			t.startLocked(id)
		}
	}
	for id, l := range t.loops {
		if !keep[id] {
			close(l.quit)
			delete(t.loops, id)
		}
	}
	return nil
}

func (t *Timers) startLocked(id uint64) {
	l := &loop{wake: make(chan struct{}, 1), quit: make(chan struct{})}
	if t.life.Go(func(ctx context.Context) { t.run(ctx, id, l) }) {
		t.loops[id] = l
	}
}

// run is context id's goroutine: fire what is due, sleep until the
// earliest entry left (at most MaxSleep), or until woken.
func (t *Timers) run(ctx context.Context, id uint64, l *loop) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.quit:
			return
		case <-l.wake:
		case <-timer.C:
		}
		d := t.fire(ctx, id)
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(d)
	}
}

// fire runs every Firer for context id and returns how long to sleep.
func (t *Timers) fire(ctx context.Context, id uint64) time.Duration {
	sleep := t.cfg.MaxSleep
	for _, f := range t.cfg.Firers {
		now := t.cfg.Now()
		next, err := f.Fire(ctx, id, now)
		if err != nil {
			if ctx.Err() == nil {
				t.log.Warn("timers: fire", "context", id, "err", err)
			}
			sleep = min(sleep, time.Second) // Redis away: try again soon
			continue
		}
		if !next.IsZero() { // counted from after the fire, which took its time
			sleep = min(sleep, max(next.Sub(t.cfg.Now()), 0))
		}
	}
	return sleep
}
