package timers

import (
	"context"
	"time"
)

// Refresh starts a goroutine for each new context and stops those of
// contexts that are gone.
func (t *Timers) Refresh() {
	if !t.life.Enter() {
		return
	}
	defer t.life.Leave()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ids, err := t.cfg.Contexts(ctx)
	if err != nil {
		t.log.Warn("timers: list contexts", "err", err)
		return
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
		if !next.IsZero() {
			sleep = min(sleep, max(next.Sub(now), 0))
		}
	}
	return sleep
}
