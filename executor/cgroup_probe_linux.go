package executor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// gateShell runs the gate (see jobCgroup.prepare) and the probe.
const gateShell = "/bin/sh"

var (
	probeOnce  sync.Once
	probeKill  bool
	probeClone bool
)

// probeCgroups finds, once per process, what the kernel offers in a
// cgroup under dir: cgroup.kill (Linux 5.14) and starting a process
// straight into a cgroup (clone3 with CLONE_INTO_CGROUP, Linux 5.7; a
// seccomp filter may refuse clone3 even then).
func probeCgroups(dir string) (kill, clone bool) {
	probeOnce.Do(func() {
		probe := filepath.Join(dir, "probe-"+strconv.Itoa(os.Getpid()))
		if err := mkdirCgroup(probe); err != nil {
			return
		}
		defer removeWhenEmpty(probe)
		_, err := os.Stat(filepath.Join(probe, "cgroup.kill"))
		probeKill = err == nil
		f, err := os.Open(probe)
		if err != nil {
			return
		}
		defer f.Close()
		cmd := exec.Command(gateShell, "-c", "exit 0")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(f.Fd())}
		probeClone = cmd.Run() == nil
	})
	return probeKill, probeClone
}

var (
	leafMu    sync.Mutex
	leafMoved bool
)

// moveToLeaf moves the agent and its children (an embedded redis-server)
// from the agent's cgroup into <agent's cgroup>/hyphae-agent, once per
// process: cgroup2 lets a cgroup other than the root hand controllers to
// its children only when it holds no processes itself, and systemd's
// documentation on delegation asks for this move. Processes that are not
// the agent's are left alone; then the move fails.
func moveToLeaf(h cgroupHost) error {
	leafMu.Lock()
	defer leafMu.Unlock()
	if leafMoved {
		return nil
	}
	leaf := filepath.Join(h.v2Own, "hyphae-agent")
	if err := mkdirCgroup(leaf); err != nil {
		return err
	}
	self := os.Getpid()
	for range 5 { // a child may be forked while the others move
		b, err := os.ReadFile(filepath.Join(h.v2Own, "cgroup.procs"))
		if err != nil {
			return err
		}
		pids := strings.Fields(string(b))
		if len(pids) == 0 {
			leafMoved = true
			return nil
		}
		for _, p := range pids {
			pid, _ := strconv.Atoi(p)
			if !descendsFrom(pid, self) {
				return fmt.Errorf("%s holds processes that are not the agent's (%d); run the agent in a cgroup "+
					"of its own, e.g. a systemd service with Delegate=yes", h.v2Own, pid)
			}
			if err := writeCgroup(leaf, "cgroup.procs", p); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("move process %s into %s: %w", p, leaf, err)
			}
		}
	}
	return fmt.Errorf("processes keep appearing in %s", h.v2Own)
}

// descendsFrom reports whether pid is ancestor or one of its descendants.
func descendsFrom(pid, ancestor int) bool {
	for range 64 {
		if pid == ancestor {
			return true
		}
		if pid <= 1 {
			return false
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		i := strings.LastIndexByte(string(b), ')')
		if err != nil || i < 0 {
			return false
		}
		f := strings.Fields(string(b[i+1:])) // state, ppid, …
		if len(f) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return false
}
