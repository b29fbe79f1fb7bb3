package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
	"github.com/hyphae-run/hyphae/scheduler/starters"
)

// Scheduler runs the flows of the contexts it serves. Create it with New,
// Start it once, Shutdown when done.
type Scheduler struct {
	cfg  Config
	st   Store
	log  *slog.Logger
	proc string // this scheduler's jobs_done processing list

	// life runs from New (subscribers and flow timers may start before
	// Start) to Shutdown; ctx is its context, cancelled by Shutdown.
	life lifecycle.Group
	ctx  context.Context

	mu      sync.Mutex
	started bool                                // guarded by mu
	loops   map[uint64]bool                     // guarded by mu
	runs    map[runKey]*flowRun                 // guarded by mu
	subs    map[runKey]map[*subscriber]struct{} // guarded by mu

	wake loopWake // the loops' wake-ups (wake.go)

	cron *starters.Schedules // the starters: cron schedules and event triggers (starters.go)
	trig *starters.Triggers
}

// New returns a scheduler over st; nothing runs until Start.
func New(cfg Config, st Store, log *slog.Logger) (*Scheduler, error) {
	if !st.complete() {
		return nil, fmt.Errorf("scheduler.New: no store")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cfg = cfg.withDefaults()
	s := &Scheduler{cfg: cfg, st: st, log: log,
		proc:  store.JobsDoneProcessingKey(cfg.owner()),
		loops: map[uint64]bool{}, runs: map[runKey]*flowRun{},
		subs: map[runKey]map[*subscriber]struct{}{}}
	s.cron = starters.NewSchedules(runs{s}, st.Timing, log, cfg.Now)
	s.trig = starters.NewTriggers(runs{s}, st.Events, st.Flows, log, cfg.Now, cfg.Self)
	s.ctx, _ = s.life.Start(context.Background()) // a new Group starts
	return s, nil
}

// Start recovers the unfinished flows of the served contexts and starts one
// event loop per context, the context refresher and the lost-runner
// watchdog. It returns at once; the work runs until Shutdown.
func (s *Scheduler) Start(ctx context.Context) error {
	s.mu.Lock()
	if !s.life.Running() || s.started {
		s.mu.Unlock()
		return fmt.Errorf("scheduler.Start: %w (already started or shut down)", ErrClosed)
	}
	s.started = true
	s.mu.Unlock()
	ids, err := s.contexts(ctx)
	if err != nil {
		s.log.Warn("listing contexts; will retry", "err", err)
	}
	for _, id := range ids {
		s.ensureLoop(id)
	}
	s.spawn(s.refresher)
	if s.cfg.PeerUp != nil {
		s.spawn(s.watchdog)
	}
	return nil
}

// Shutdown stops every loop, timer and subscriber and waits for them (or
// for ctx). Flows stay in Redis; a new scheduler resumes them. Safe to call
// more than once.
func (s *Scheduler) Shutdown(ctx context.Context) error {
	if !s.life.Stop() { // refuses new goroutines and cancels ctx
		return nil
	}
	s.mu.Lock()
	runs := make([]*flowRun, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.mu.Lock()
		if r.timer != nil {
			r.timer.Stop()
		}
		r.mu.Unlock()
	}
	if err := s.life.Wait(ctx); err != nil {
		return fmt.Errorf("scheduler.Shutdown: %w", err)
	}
	return nil
}

// spawn runs fn(s.ctx) in a tracked goroutine unless shut down.
func (s *Scheduler) spawn(fn func(ctx context.Context)) bool {
	return s.life.Go(fn)
}

// running reports whether Start was called and Shutdown was not.
func (s *Scheduler) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started && s.life.Running()
}

// contexts lists the served contexts.
func (s *Scheduler) contexts(ctx context.Context) ([]uint64, error) {
	if s.cfg.Contexts != nil {
		return s.cfg.Contexts(ctx)
	}
	cs, err := s.st.Registry.ListContexts(ctx)
	if err != nil {
		return nil, fmt.Errorf("scheduler: list contexts: %w", err)
	}
	ids := make([]uint64, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids, nil
}
