package embedredis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"
)

// killWait bounds the wait for the child's exit after SIGKILL.
const killWait = 5 * time.Second

// shutdown ends the restarts, stops the current process gracefully
// (SHUTDOWN flushes the AOF), kills its process group after
// shutdownTimeout or when ctx ends, and releases the data dir. A process
// that already died is only cleaned up after.
func (c *child) shutdown(ctx context.Context) error {
	c.cancel()
	<-c.supervised // it kills a process it was still starting
	p := c.current()
	var err error
	if p != nil && !p.hasExited() {
		c.askToStop(ctx, p)
		err = c.awaitExit(ctx, p)
	}
	c.release()
	return err
}

// askToStop sends SHUTDOWN; if redis-server refuses or cannot be reached it
// gets SIGTERM, which also makes it flush and exit.
func (c *child) askToStop(ctx context.Context, p *proc) {
	line, err := command(ctx, c.sock, "SHUTDOWN")
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return // redis-server closes the connection when it exits
	}
	c.log.Warn("embedredis: SHUTDOWN not accepted, sending SIGTERM",
		"reply", line, "err", err)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
}

// awaitExit waits for p, killing it when the bound or ctx runs out.
func (c *child) awaitExit(ctx context.Context, p *proc) error {
	bound := time.NewTimer(shutdownTimeout)
	defer bound.Stop()
	var why string
	select {
	case <-p.exited:
		return nil
	case <-bound.C:
		why = fmt.Sprintf("did not exit within %s", shutdownTimeout)
	case <-ctx.Done():
		why = fmt.Sprintf("stop interrupted (%v)", ctx.Err())
	}
	p.kill()
	select {
	case <-p.exited:
	case <-time.After(killWait):
		return fmt.Errorf("redis-server (pid %d) %s and survived SIGKILL for %s",
			p.pid(), why, killWait)
	}
	return fmt.Errorf("redis-server (pid %d) %s: killed, the last second of writes "+
		"may be missing from the AOF", p.pid(), why)
}

func (p *proc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}
