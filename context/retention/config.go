package retention

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Config tunes a Janitor. Zero values take the defaults documented per
// field (Defaults* below).
type Config struct {
	DataDir     string        // required: job directories live under <DataDir>/contexts/<N>/jobs/
	MaxAge      time.Duration // ended objects older than this go; default 7 days
	MaxJobs     int           // ended jobs kept per context (newest first), flows' jobs aside; default 10000
	MaxFlows    int           // ended flows kept per context, each with its jobs; default 1000
	MaxMessages int           // settled messages kept per context, and msg_in's length; default 10000
	Interval    time.Duration // between sweeps; default 1m
	Margin      int           // ended jobs past MaxJobs that sweep a context early; default max(MaxJobs/2, 100)
	Batch       int           // items per script call; default 100
	Off         bool          // no periodic or early sweeps (Prune still works)

	// Contexts lists the context DBs to sweep.
	Contexts func(ctx context.Context) ([]uint64, error)

	// OnPruned, when set, is told of the jobs of context ctxID a sweep or
	// a prune removed (not a dry run), after their directories: the
	// content store releases the files they held (node/jobfiles).
	OnPruned func(ctxID uint64, keys []string)
}

// The defaults, for a home lab: a week of history is enough to look back
// at what ran last weekend, and 10 000 jobs per context (a job a minute
// for a week) keep Redis at some tens of MB with small logs, whatever
// runs. asynq keeps nothing unless a task asks (Retention); Nomad
// collects terminal jobs after 4 h — both aim at clusters that run far
// more than a home lab, where history is more useful than the memory.
const (
	DefaultMaxAge      = 7 * 24 * time.Hour
	DefaultMaxJobs     = 10000
	DefaultMaxFlows    = 1000
	DefaultMaxMessages = 10000
	DefaultInterval    = time.Minute
	DefaultBatch       = 100
)

// minMargin is the least default Margin: every early sweep lists all of
// its context's ended jobs, so a small MaxJobs must not mean a sweep
// after every few jobs.
const minMargin = 100

// Early sweeps (Janitor.Ended) let a context grow by Margin ended jobs
// past MaxJobs, and each lists all MaxJobs+Margin to remove Margin of
// them. The listing is what costs: about 50 ms of redis-server CPU for
// 11,000 jobs, against 10 ms to remove 1,000 (2 vCPU, 2026-12). Half of
// MaxJobs lists three jobs per job removed, a few per cent of a noop
// job's cost, and bounds a context at 1.5 times MaxJobs; a tenth would
// list eleven, over a tenth of a noop job's cost at thousands a second
// (BENCHMARKS.md, Lean, Accumulation).

// withDefaults returns c with every zero field set.
func (c Config) withDefaults() Config {
	if c.MaxAge == 0 {
		c.MaxAge = DefaultMaxAge
	}
	if c.MaxJobs == 0 {
		c.MaxJobs = DefaultMaxJobs
	}
	if c.MaxFlows == 0 {
		c.MaxFlows = DefaultMaxFlows
	}
	if c.MaxMessages == 0 {
		c.MaxMessages = DefaultMaxMessages
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Margin == 0 {
		c.Margin = max(c.MaxJobs/2, minMargin)
	}
	return c
}

// Validate checks c (with defaults applied).
func (c Config) Validate() error {
	d := c.withDefaults()
	var errs []error
	if d.DataDir == "" {
		errs = append(errs, errors.New("a DataDir is required"))
	}
	if d.Contexts == nil {
		errs = append(errs, errors.New("a Contexts func is required"))
	}
	if d.MaxAge < 0 || d.Interval < 0 {
		errs = append(errs, fmt.Errorf("MaxAge %v and Interval %v must not be negative", d.MaxAge, d.Interval))
	}
	if d.MaxJobs < 0 || d.MaxFlows < 0 || d.MaxMessages < 0 || d.Batch < 0 || d.Margin < 0 {
		errs = append(errs, fmt.Errorf("MaxJobs %d, MaxFlows %d, MaxMessages %d, Batch %d and Margin %d must not be negative",
			d.MaxJobs, d.MaxFlows, d.MaxMessages, d.Batch, d.Margin))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("retention config: %w", err)
	}
	return nil
}
