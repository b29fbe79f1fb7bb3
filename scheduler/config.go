package scheduler

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// Config connects the scheduler to the rest of the agent. Every func may
// be nil; the defaults say what happens then.
type Config struct {
	// Self is this agent's peer ID: a job whose runner is Self (or "",
	// "self") runs locally when LocalTypes serves its type.
	Self string
	// LocalTypes lists the script types this agent's runner serves (nil:
	// none, every job goes to the bridge).
	LocalTypes func() []string
	// Contexts lists the contexts whose flows this scheduler serves (nil:
	// every context in the registry). Refreshed every Refresh.
	Contexts func(ctx context.Context) ([]uint64, error)
	// PeerUp reports whether a peer is present (nil: the lost-runner
	// watchdog is off).
	PeerUp func(peerID string) bool
	// PickRunner chooses a peer for a remote job of scriptType, avoiding
	// the peers given (nil or "": the bridge routes by the job's runner or
	// type).
	PickRunner func(scriptType string, avoid []string) string
	// RunnerLostAfter is how long a remote runner may be down before its
	// job is given up on there: dispatched again elsewhere when retries
	// allow, else failed — either way with a warning that it may still
	// have run there (supervisor.runner_lost_after). Until then the job is
	// unknown and waits for the runner. Default 1h.
	RunnerLostAfter time.Duration
	// Lost hears of each remote flow job attempt given up on as lost, with
	// the peer it went to and why, so that the bridge's circuit breaker for
	// that peer counts it as it counts a lost plain job (nil: nobody hears).
	Lost func(peerID, reason string)
	// GrantFiles signs the ref through which peer to may have the files
	// of a producer that ran on another agent (node/jobfiles grants; nil:
	// none, the producer's agent then judges by roles alone).
	GrantFiles func(ref, to string) (string, error)
	// Stop stops a dispatched job (the node routes it to the local runner
	// or to the bridge). Nil: stopped jobs are only marked cancelled.
	Stop func(ctx context.Context, ctxID uint64, jobKey string, job *model.RunnerJob) error
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// Block bounds one BLMOVE on jobs_done, so Shutdown waits at most that
	// long (default 500ms, at most 2s: the client's read timeout is 3s);
	// Refresh is how
	// often the served contexts are re-read (default 3s); WatchPoll is how
	// often a subscriber re-reads a flow between events (default 1s).
	Block, Refresh, WatchPoll time.Duration
}

func (c Config) withDefaults() Config {
	if c.RunnerLostAfter <= 0 {
		c.RunnerLostAfter = time.Hour
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Block <= 0 {
		c.Block = 500 * time.Millisecond
	}
	c.Block = min(c.Block, 2*time.Second)
	if c.Refresh <= 0 {
		c.Refresh = 3 * time.Second
	}
	if c.WatchPoll <= 0 {
		c.WatchPoll = time.Second
	}
	if c.LocalTypes == nil {
		c.LocalTypes = func() []string { return nil }
	}
	return c
}

// owner names this scheduler's processing list.
func (c Config) owner() string {
	if c.Self == "" {
		return "local"
	}
	return c.Self
}
