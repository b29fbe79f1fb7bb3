package retention

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Janitor sweeps the agent's contexts every Interval (unless Off), sweeps
// a context's jobs early once Ended has counted Margin past MaxJobs, and
// prunes on demand. One sweep or prune runs at a time.
type Janitor struct {
	cfg Config
	st  Store
	log *slog.Logger

	turn chan struct{} // holds one token: whoever takes it sweeps
	wake chan struct{} // holds one signal: a context is due an early sweep

	mu     sync.Mutex
	cancel context.CancelFunc // set by Start; guarded by mu
	done   chan struct{}      // closed when the loop ends; guarded by mu
	ended  map[uint64]int     // per context, ended jobs kept at its last sweep and ended here since; guarded by mu
	due    map[uint64]bool    // contexts past MaxJobs+Margin, for the next early sweep; guarded by mu
}

// New checks cfg and returns a Janitor; nothing runs until Start.
func New(cfg Config, st Store, log *slog.Logger) (*Janitor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	j := &Janitor{cfg: cfg.withDefaults(), st: st, log: log, turn: make(chan struct{}, 1),
		wake: make(chan struct{}, 1), ended: map[uint64]int{}, due: map[uint64]bool{}}
	j.turn <- struct{}{}
	return j, nil
}

// Start begins the periodic and early sweeps (none when Off): the first
// periodic one after one Interval, so that starting an agent costs
// nothing more.
func (j *Janitor) Start(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.cancel != nil {
		return fmt.Errorf("retention: started twice")
	}
	ctx, j.cancel = context.WithCancel(context.WithoutCancel(ctx))
	j.done = make(chan struct{})
	if j.cfg.Off {
		close(j.done)
		return nil
	}
	go j.loop(ctx)
	j.log.Info("retention: sweeping", "every", j.cfg.Interval, "max_age", j.cfg.MaxAge,
		"max_jobs", j.cfg.MaxJobs, "margin", j.cfg.Margin, "max_flows", j.cfg.MaxFlows, "max_messages", j.cfg.MaxMessages)
	return nil
}

// Shutdown stops the sweeps, interrupting one under way between two
// batches, and waits for the loop to end (or ctx).
func (j *Janitor) Shutdown(ctx context.Context) error {
	j.mu.Lock()
	cancel, done := j.cancel, j.done
	j.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("retention: shutdown: %w", ctx.Err())
	}
}

func (j *Janitor) loop(ctx context.Context) {
	defer close(j.done)
	t := time.NewTicker(j.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			j.sweepAll(ctx)
		case <-j.wake:
			j.sweepDue(ctx)
		}
	}
}

// sweepAll is the periodic sweep: every context, everything.
func (j *Janitor) sweepAll(ctx context.Context) {
	rep, err := j.Prune(ctx, Options{})
	switch {
	case ctx.Err() != nil:
		return
	case err != nil:
		j.log.Warn("retention: sweep", "err", err)
	}
	j.logReport(rep)
}

// logReport logs what a sweep removed, per context, when it removed
// anything.
func (j *Janitor) logReport(rep *Report) {
	if rep == nil {
		return
	}
	for _, c := range rep.Contexts {
		if c.Error != "" {
			j.log.Warn("retention: context", "context", c.Context, "err", c.Error)
		}
		if c.empty() {
			continue
		}
		j.log.Info("retention: pruned", "context", c.Context, "jobs", c.Jobs, "flows", c.Flows,
			"messages", c.Messages, "msg_in", c.MsgIn, "dirs", c.Dirs, "redis_bytes", c.RedisBytes, "disk_bytes", c.DiskBytes)
	}
}
