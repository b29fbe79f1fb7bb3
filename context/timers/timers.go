package timers

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
)

// Firer fires what is due at now in one context and returns the due time
// of its earliest entry left (zero: none). Fire must be safe to run on
// several agents at once: each entry fires once (a Redis script).
type Firer interface {
	Fire(ctx context.Context, ctxID uint64, now time.Time) (time.Time, error)
}

// FirerFunc adapts a function to Firer.
type FirerFunc func(ctx context.Context, ctxID uint64, now time.Time) (time.Time, error)

// Fire calls f.
func (f FirerFunc) Fire(ctx context.Context, ctxID uint64, now time.Time) (time.Time, error) {
	return f(ctx, ctxID, now)
}

// Config tunes the Timers.
type Config struct {
	// Contexts lists the agent's contexts (required).
	Contexts func(context.Context) ([]uint64, error)
	// Now is the clock (default time.Now); tests move it and Kick.
	Now func() time.Time
	// MaxSleep bounds a sleep, so a lost announcement is caught up with
	// (default one minute).
	MaxSleep time.Duration
	// Firers run besides the delayed jobs' (store.FireDueTimers).
	Firers []Firer
}

// Timers is the component; New, Start, Shutdown.
type Timers struct {
	cfg  Config
	st   TimingStore
	log  *slog.Logger
	life lifecycle.Group

	refresh chan struct{} // holds one pending Refresh

	mu    sync.Mutex
	loops map[uint64]*loop // guarded by mu
	ev    *store.TimerEvents
}

// loop is one context's goroutine: wake interrupts its sleep, closing
// quit ends it.
type loop struct {
	wake chan struct{}
	quit chan struct{}
}

// New returns the component; nothing runs until Start.
func New(cfg Config, st TimingStore, log *slog.Logger) (*Timers, error) {
	if cfg.Contexts == nil {
		return nil, fmt.Errorf("timers: Config.Contexts is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxSleep <= 0 {
		cfg.MaxSleep = time.Minute
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg.Firers = append([]Firer{FirerFunc(jobFirer(st))}, cfg.Firers...)
	return &Timers{cfg: cfg, st: st, log: log, loops: map[uint64]*loop{}, refresh: make(chan struct{}, 1)}, nil
}

func jobFirer(st TimingStore) func(context.Context, uint64, time.Time) (time.Time, error) {
	return func(ctx context.Context, id uint64, now time.Time) (time.Time, error) {
		_, next, err := st.FireDueTimers(ctx, id, now)
		return next, err
	}
}

// Start subscribes to the announcements and starts a goroutine for each
// context.
func (t *Timers) Start(ctx context.Context) error {
	if _, err := t.life.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("timers: %w", err)
	}
	ev, err := t.st.SubscribeTimers(ctx, t.announced)
	if err != nil {
		return fmt.Errorf("timers: %w", err)
	}
	t.mu.Lock()
	t.ev = ev
	t.mu.Unlock()
	t.life.Go(t.refresher)
	return nil
}

// Shutdown stops every goroutine and the subscription.
func (t *Timers) Shutdown(ctx context.Context) error {
	t.life.Stop()
	t.mu.Lock()
	ev := t.ev
	t.ev = nil
	t.mu.Unlock()
	if ev != nil {
		_ = ev.Close()
	}
	return t.life.Wait(ctx)
}

// announced wakes the goroutine of the context that got an earlier timer
// (every goroutine after a broken subscription).
func (t *Timers) announced(e store.TimerEvent) {
	if e.Resync {
		t.KickAll()
		return
	}
	t.Kick(e.CtxID)
}

// Kick wakes the goroutine of context id, which fires what is due and
// reads its next due time again.
func (t *Timers) Kick(id uint64) {
	t.mu.Lock()
	l := t.loops[id]
	t.mu.Unlock()
	if l != nil {
		wake(l)
	}
}

// KickAll wakes every context's goroutine.
func (t *Timers) KickAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.loops {
		wake(l)
	}
}

func wake(l *loop) {
	select {
	case l.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}
