package embedredis

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// pollInterval is how often a starting or stopping child is probed at
// most; a start is probed first after firstPoll, the gap doubling up to
// pollInterval: redis-server on a fresh data dir answers within a few
// milliseconds, and the agent's start-up waits for it.
const (
	pollInterval = 50 * time.Millisecond
	firstPoll    = time.Millisecond
)

// waitReady returns once p answers PING with PONG. It fails if p exits, if
// nothing answers within readyTimeout, or when ctx ends. A LOADING reply (a
// big AOF being read) lifts readyTimeout: ctx bounds it.
func (c *child) waitReady(ctx context.Context, p *proc) error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	gap := firstPoll
	tick := time.NewTimer(gap)
	defer tick.Stop()
	for loading := false; ; {
		line, ok := ping(ctx, c.sock)
		if ok && line == "+PONG" {
			return nil
		}
		if ok && strings.HasPrefix(line, "-LOADING") && !loading {
			loading = true
			deadline.Stop()
			c.log.Info("embedredis: redis-server is loading its append-only file")
		}
		select {
		case <-p.exited:
			return c.startError(p, fmt.Sprintf("redis-server exited during start (%v)", p.waitErr))
		case <-deadline.C:
			return c.startError(p, fmt.Sprintf("redis-server did not answer PING on %s within %s",
				c.sock, readyTimeout))
		case <-ctx.Done():
			return c.startError(p, fmt.Sprintf("waiting for redis-server: %v", ctx.Err()))
		case <-tick.C:
			gap = min(2*gap, pollInterval)
			tick.Reset(gap)
		}
	}
}

// startError quotes p's log after what went wrong.
func (c *child) startError(p *proc, what string) error {
	return fmt.Errorf("%s; log %s ends with:\n%s", what, c.logPath, logTail(c.logPath, p.logStart))
}
