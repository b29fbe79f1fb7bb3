package embedredis

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// spawn starts the child and a goroutine that waits for it and reports its
// end to s. cmd.Start runs on an OS thread locked for the child's whole life:
// Linux delivers Pdeathsig when the thread that forked the child exits, and
// the Go runtime may end an unlocked thread's life at any time.
func (c *child) spawn(bin string, args []string, s *Server) error {
	c.cmd = exec.Command(bin, args...)
	c.cmd.Dir = c.dir
	c.cmd.Stdout = c.logFile
	c.cmd.Stderr = c.logFile
	c.cmd.SysProcAttr = childProcAttr()
	started := make(chan error, 1)
	go c.run(started, s)
	if err := <-started; err != nil {
		return fmt.Errorf("start %s: %w", bin, err)
	}
	pid := strconv.Itoa(c.cmd.Process.Pid) + "\n"
	if err := os.WriteFile(c.pidPath, []byte(pid), 0o600); err != nil {
		s.log.Warn("embedredis: cannot write pid file", "path", c.pidPath, "err", err)
	}
	return nil
}

// run starts the child, then waits for it on the same locked thread.
func (c *child) run(started chan<- error, s *Server) {
	runtime.LockOSThread()
	// No UnlockOSThread: the thread ends with this goroutine, after the child.
	if err := c.cmd.Start(); err != nil {
		close(c.exited)
		started <- err
		return
	}
	started <- nil
	c.waitErr = c.cmd.Wait()
	c.reportExit(s)
	close(c.exited) // after s.Done: Shutdown returns with Done closed
}

// reportExit closes s.Done; the exit of a running child that nobody asked
// to stop is logged loudly and becomes s.Err.
func (c *child) reportExit(s *Server) {
	if c.phase.Swap(phaseDead) != phaseRunning {
		s.finish(nil) // stopped on purpose, or failed during Start
		return
	}
	tail := logTail(c.logPath, c.logStart)
	err := fmt.Errorf("%w (pid %d): %v; log %s ends with:\n%s",
		ErrDied, c.cmd.Process.Pid, c.waitErr, c.logPath, tail)
	s.log.Error("embedredis: redis-server EXITED UNEXPECTEDLY; the agent's store is gone",
		"pid", c.cmd.Process.Pid, "status", fmt.Sprint(c.waitErr), "log", c.logPath, "log_tail", tail)
	s.finish(err)
}

// kill sends SIGKILL to the child's process group.
func (c *child) kill() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
}
