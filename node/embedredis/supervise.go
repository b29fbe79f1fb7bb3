package embedredis

import (
	"context"
	"fmt"
	"time"
)

// supervise waits for the current process to exit. An exit nobody asked for
// is logged loudly and followed by restarts with a growing delay
// (RestartPolicy) on the same socket and files, so the AOF brings the data
// back. It returns when Shutdown begins, or after giving up (Failed).
func (c *child) supervise(s *Server) {
	defer close(c.supervised)
	used, upAt := 0, time.Now() // restarts used in this outage; last time up
	for {
		p := c.current()
		select {
		case <-p.exited:
		case <-c.ctx.Done():
			return
		}
		if c.ctx.Err() != nil {
			return // Shutdown stopped it
		}
		died := c.reportDeath(p)
		p.kill() // ends an AOF rewrite the dead process may have forked
		if time.Since(upAt) >= stableAfter {
			used = 0
		}
		var err error
		if used, err = c.restart(s, died, used); err != nil {
			if c.ctx.Err() == nil {
				c.giveUp(s, err)
			}
			return
		}
		upAt = time.Now()
	}
}

// reportDeath logs the unexpected exit of p with its log's tail and returns
// it as an error wrapping ErrDied.
func (c *child) reportDeath(p *proc) error {
	tail := logTail(c.logPath, p.logStart)
	c.log.Error("embedredis: redis-server EXITED UNEXPECTEDLY; the agent's store is "+
		"unavailable until it is restarted", "pid", p.pid(), "status", fmt.Sprint(p.waitErr),
		"log", c.logPath, "log_tail", tail)
	return fmt.Errorf("%w (pid %d: %v)", ErrDied, p.pid(), p.waitErr)
}

// restart tries to bring the child back, spending the outage's remaining
// attempts, each after its delay. It returns the attempts used so far and
// an error if none worked or Shutdown began.
func (c *child) restart(s *Server, died error, used int) (int, error) {
	n := c.policy.Attempts
	s.setHealth(died)
	s.emit(Event{State: StateDown, Err: died})
	var last error
	for ; used < n; used++ {
		s.setHealth(restarting(died, used+1, n))
		delay := c.policy.delay(used)
		if !sleepCtx(c.ctx, delay) {
			return used, c.ctx.Err()
		}
		c.log.Warn("embedredis: restarting redis-server", "attempt", used+1, "of", n, "after", delay)
		p, err := c.startProc(c.ctx)
		if err == nil {
			c.log.Info("embedredis: redis-server is back", "pid", p.pid(), "attempt", used+1)
			s.setHealth(nil)
			s.emit(Event{State: StateUp})
			return used + 1, nil
		}
		if c.ctx.Err() != nil {
			return used, c.ctx.Err()
		}
		last = err
		c.log.Error("embedredis: restart of redis-server failed", "attempt", used+1, "of", n, "err", err)
	}
	return used, c.gaveUpError(died, last)
}

// gaveUpError says why the child stays dead.
func (c *child) gaveUpError(died error, last error) error {
	switch {
	case c.policy.Attempts == 0:
		return fmt.Errorf("%w; restarts are off (Options.Restart.Attempts < 0)", died)
	case last == nil:
		return fmt.Errorf("%w; it died within %s of each of its %d restarts: giving up",
			died, stableAfter, c.policy.Attempts)
	}
	return fmt.Errorf("%w; %d restarts failed, the last: %w", died, c.policy.Attempts, last)
}

// giveUp ends the Server with err: Failed and Done are closed.
func (c *child) giveUp(s *Server, err error) {
	c.log.Error("embedredis: GAVE UP restarting redis-server; the agent cannot work "+
		"without its store and should exit", "err", err)
	s.finish(err)
	s.emit(Event{State: StateFailed, Err: err})
}

// sleepCtx waits d; it reports false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
