package embedredis

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// proc is one run of redis-server: the first, or one restart.
type proc struct {
	cmd      *exec.Cmd
	logStart int64         // offset of this run's output in the log
	exited   chan struct{} // closed after cmd.Wait returned
	waitErr  error         // cmd.Wait's result; read after exited
}

// spawn starts a redis-server process and makes it the current one. It
// does not wait for it to be ready.
func (c *child) spawn() (*proc, error) {
	p := &proc{logStart: logEnd(c.logFile), exited: make(chan struct{})}
	p.cmd = exec.Command(c.bin, c.args...)
	p.cmd.Dir = c.dir
	p.cmd.Stdout = c.logFile
	p.cmd.Stderr = c.logFile
	p.cmd.SysProcAttr = childProcAttr()
	started := make(chan error, 1)
	go p.run(started)
	if err := <-started; err != nil {
		c.setCurrent(nil)
		return nil, fmt.Errorf("start %s: %w", c.bin, err)
	}
	c.setCurrent(p)
	pid := strconv.Itoa(p.pid()) + "\n"
	if err := os.WriteFile(c.pidPath, []byte(pid), 0o600); err != nil {
		c.log.Warn("embedredis: cannot write pid file", "path", c.pidPath, "err", err)
	}
	return p, nil
}

// run starts the process, then waits for it on the same OS thread, locked
// for the process's whole life: Linux delivers Pdeathsig when the thread
// that forked the child exits, and the Go runtime may end an unlocked
// thread's life at any time.
func (p *proc) run(started chan<- error) {
	runtime.LockOSThread()
	// No UnlockOSThread: the thread ends with this goroutine, after the child.
	if err := p.cmd.Start(); err != nil {
		close(p.exited)
		started <- err
		return
	}
	started <- nil
	p.waitErr = p.cmd.Wait()
	close(p.exited)
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// kill sends SIGKILL to the process group, which also ends a background
// AOF rewrite the process may have forked.
func (p *proc) kill() {
	_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
}

func (c *child) current() *proc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *child) setCurrent(p *proc) {
	c.mu.Lock()
	c.cur = p
	c.mu.Unlock()
}
