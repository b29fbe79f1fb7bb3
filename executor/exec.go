package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hyphae-run/hyphae/executor/sandbox"
)

// stopGrace caps the SIGTERM → SIGKILL delay for stops, which must take
// effect within a second.
const stopGrace = 500 * time.Millisecond

// readGrace bounds how long output is read after the job's process group
// was killed (a daemon that left the group may hold the pipes open).
const readGrace = time.Second

// procSpec is one process to run.
type procSpec struct {
	argv    []string
	dir     string
	env     []string
	timeout time.Duration
	grace   time.Duration
	stdin   *os.File            // shared /dev/null, or nil
	cred    *syscall.Credential // run as this user, or nil
	cg      *jobCgroup          // the job's cgroup, or nil: its process group only
	limits  jobLimits           // what cg enforces, for the reason of an OOM kill
	contain *sandbox.Job        // run contained through box, or nil
	box     *sandbox.Sandbox
}

// procResult is how the process ended.
type procResult struct {
	exitCode int
	state    *os.ProcessState // nil when it did not start
	startErr error
	cause    error // why it was killed (timeout, stop, drain, lease lost), or nil
	oomKills int64 // processes the kernel killed for going over the memory limit
}

// runProcess starts spec in its own process group (and its cgroup, when
// spec has one) with stdout and stderr going to out, waits for it, and
// kills the group — the whole cgroup — on timeout or when ctx is cancelled
// (SIGTERM, then SIGKILL after the grace period). Whatever is left after
// the main process exits is killed too, and the cgroup removed. The wait
// is on the calling goroutine; only a cancellation starts another one.
func runProcess(ctx context.Context, spec procSpec, out *capture) procResult {
	ctx, cancel := context.WithTimeoutCause(ctx, spec.timeout, errTimeout)
	defer cancel()
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Dir, cmd.Env = spec.dir, spec.env
	if spec.stdin != nil {
		cmd.Stdin = spec.stdin // else os/exec opens /dev/null per job
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: spec.cred}
	if spec.contain != nil {
		if err := spec.box.Wrap(cmd, *spec.contain); err != nil {
			return procResult{exitCode: -1, startErr: err}
		}
	}
	if err := out.attach(cmd); err != nil {
		return procResult{exitCode: -1, startErr: err}
	}
	if err := start(cmd, spec.cg); err != nil {
		out.abort()
		return procResult{exitCode: -1, startErr: err}
	}
	out.started()
	k := &groupKiller{pgid: cmd.Process.Pid, cg: spec.cg}
	stop := context.AfterFunc(ctx, func() { k.terminate(graceFor(context.Cause(ctx), spec.grace)) })
	_ = cmd.Wait()
	res := procResult{}
	if !stop() { // ctx ended first: the group is being killed
		res.cause = context.Cause(ctx)
	}
	k.exited()
	k.killAll()
	out.finish(readGrace)
	if spec.cg != nil {
		res.oomKills = spec.cg.finish()
	}
	res.state = cmd.ProcessState
	res.exitCode = exitCode(cmd.ProcessState)
	return res
}

// start starts cmd, in cg when not nil; a process that started but could
// not be put into its cgroup is killed and reaped.
func start(cmd *exec.Cmd, cg *jobCgroup) error {
	if cg == nil {
		return cmd.Start()
	}
	if err := cg.prepare(cmd); err != nil {
		cg.abort()
		return fmt.Errorf("prepare cgroup: %w", err)
	}
	if err := cmd.Start(); err != nil {
		cg.abort()
		return err
	}
	if err := cg.started(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		cg.kill()
		cg.finish()
		return fmt.Errorf("join cgroup: %w", err)
	}
	return nil
}

// groupKiller ends a job's process group — its cgroup, when it has one —
// when its attempt is cancelled: SIGTERM at once, SIGKILL after the grace
// period unless the main process exited first.
type groupKiller struct {
	pgid  int
	cg    *jobCgroup // nil: the process group only
	mu    sync.Mutex
	timer *time.Timer // guarded by mu
	gone  bool        // the main process was reaped; guarded by mu
}

func (k *groupKiller) terminate(grace time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gone {
		return
	}
	if k.cg != nil {
		k.cg.signal(syscall.SIGTERM)
	} else {
		killGroup(k.pgid, syscall.SIGTERM)
	}
	k.timer = time.AfterFunc(grace, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if !k.gone {
			k.killAll()
		}
	})
}

// killAll SIGKILLs the job's process group and, with a cgroup, every
// process in it (a child that called setsid left the group, not the
// cgroup).
func (k *groupKiller) killAll() {
	killGroup(k.pgid, syscall.SIGKILL)
	if k.cg != nil {
		k.cg.kill()
	}
}

// exited disarms the killer once the main process was reaped.
func (k *groupKiller) exited() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gone = true
	if k.timer != nil {
		k.timer.Stop()
	}
}

func graceFor(cause error, grace time.Duration) time.Duration {
	if errors.Is(cause, errStopped) {
		return min(grace, stopGrace)
	}
	return grace
}

func killGroup(pgid int, sig syscall.Signal) {
	_ = syscall.Kill(-pgid, sig) // ESRCH: the group is gone already
}

// exitCode is the process's exit status, or 128+signal when a signal
// ended it (as shells report it).
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// describeExit explains a failed process: "exit status 3: <last stderr
// line>", or "killed by signal …".
func describeExit(ps *os.ProcessState, lastErr string) string {
	msg := "exit status " + strconv.Itoa(exitCode(ps))
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		msg = "killed by signal " + ws.Signal().String()
	}
	if lastErr != "" {
		msg += ": " + lastErr
	}
	return msg
}

// killOrphans kills the process groups left by an earlier run of the
// script in dir (a runner killed with -9 cannot take its children along):
// groups whose leader runs in dir with dir's script on its command line.
// It scans /proc, so it is meant for the rare reclaim of a crashed
// runner's jobs, not for every job.
func killOrphans(dir string) int {
	cwd := dir
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		cwd = resolved
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 1 || !isJobLeader(pid, cwd, dir) {
			continue
		}
		killGroup(pid, syscall.SIGKILL)
		n++
	}
	return n
}

// isJobLeader reports whether pid leads its process group, runs in cwd
// and has dir's script file on its command line.
func isJobLeader(pid int, cwd, dir string) bool {
	proc := "/proc/" + strconv.Itoa(pid)
	if pgid, err := syscall.Getpgid(pid); err != nil || pgid != pid {
		return false
	}
	wd, err := os.Readlink(proc + "/cwd")
	if err != nil || filepath.Clean(wd) != filepath.Clean(cwd) {
		return false
	}
	cmdline, err := os.ReadFile(proc + "/cmdline")
	return err == nil && strings.Contains(string(cmdline), filepath.Join(dir, "script"))
}
