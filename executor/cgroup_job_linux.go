package executor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// jobCgroup is the cgroup of one job attempt: every process the job
// starts stays in it, whatever it does with sessions and process groups,
// so killing the cgroup ends the job and all it left behind.
type jobCgroup struct {
	c      *cgroups
	dir    string   // its cgroup2 directory
	v1     []string // its cgroup v1 directories (limits on hybrid machines)
	memV1  string   // its cgroup v1 memory directory, "" = none
	limits jobLimits
	fd     *os.File // dir, open until the process started in it (CLONE_INTO_CGROUP)
	gateR  *os.File // the gate's pipe (see prepare), nil = no gate
	gateW  *os.File
}

// newJob creates the cgroup of one job attempt with its limits. warnings
// name the limits asked for that cannot be enforced here: the job runs
// without them, as Nomad's raw_exec runs a task on a client without
// cgroups, and says so in its log and result.
func (c *cgroups) newJob(name string, lim jobLimits) (*jobCgroup, []string, error) {
	j := &jobCgroup{c: c, dir: filepath.Join(c.dir, name), limits: lim}
	err := os.Mkdir(j.dir, 0o755)
	if errors.Is(err, fs.ErrExist) { // left by an earlier run of this very attempt
		c.killLeftover(name)
		err = os.Mkdir(j.dir, 0o755)
	}
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	for _, ctl := range lim.asked() {
		var err error
		switch {
		case c.v2[ctl]:
			err = setLimitV2(j.dir, ctl, lim)
		case c.v1[ctl] != "":
			err = j.limitV1(ctl, name)
		default:
			warnings = append(warnings, lim.describe(ctl)+" not enforced: "+c.why[ctl])
		}
		if err != nil {
			j.abort()
			return nil, nil, fmt.Errorf("set %s: %w", lim.describe(ctl), err)
		}
	}
	if c.clone {
		if j.fd, err = os.Open(j.dir); err != nil {
			j.abort()
			return nil, nil, err
		}
	}
	return j, warnings, nil
}

// limitV1 creates the job's cgroup in the v1 hierarchy of ctl and sets
// the limit there; the process joins it through the gate.
func (j *jobCgroup) limitV1(ctl, name string) error {
	d := filepath.Join(j.c.v1[ctl], name)
	if err := mkdirCgroup(d); err != nil {
		return err
	}
	j.v1 = append(j.v1, d)
	if ctl == "memory" {
		j.memV1 = d
	}
	return setLimitV1(d, ctl, j.limits)
}

// gateScript holds the job's process until the agent has put it into its
// cgroups, then becomes the job's command: a process cannot fork before
// it is contained. fd is the pipe's number in the child.
const gateScript = `read -r g <&%d; exec %d<&-; [ "$g" = go ] && exec "$@"; exit 125`

// prepare has cmd start in the job's cgroup: straight into it with
// CLONE_INTO_CGROUP, and through the gate when the process must also join
// cgroup v1 directories (or clone3 cannot start it in its cgroup): the
// gate waits on a pipe until started has moved it.
func (j *jobCgroup) prepare(cmd *exec.Cmd) error {
	if j.fd != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(j.fd.Fd())
		if len(j.v1) == 0 {
			return nil
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	j.gateR, j.gateW = r, w
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	cmd.Args = append([]string{gateShell, "-c", fmt.Sprintf(gateScript, fd, fd), "hyphae-gate", cmd.Path},
		cmd.Args[1:]...)
	cmd.Path = gateShell
	return nil
}

// started completes the placement of the job's process pid (see prepare)
// and lets it run.
func (j *jobCgroup) started(pid int) error {
	j.closeFiles(false)
	if j.gateW == nil {
		return nil
	}
	defer j.closeFiles(true)
	p := strconv.Itoa(pid)
	if !j.c.clone {
		if err := writeCgroup(j.dir, "cgroup.procs", p); err != nil {
			return err
		}
	}
	for _, d := range j.v1 {
		if err := writeCgroup(d, "cgroup.procs", p); err != nil {
			return err
		}
	}
	_, err := j.gateW.WriteString("go\n")
	return err
}

// closeFiles closes the directory and the child's end of the gate, and
// with gate also the agent's end (the gate then gives up if not let
// through).
func (j *jobCgroup) closeFiles(gate bool) {
	for _, f := range []**os.File{&j.fd, &j.gateR} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
	if gate && j.gateW != nil {
		j.gateW.Close()
		j.gateW = nil
	}
}

// signal sends sig to every process of the job.
func (j *jobCgroup) signal(sig syscall.Signal) {
	for _, pid := range j.procs() {
		_ = syscall.Kill(pid, sig)
	}
}

// kill SIGKILLs every process of the job at once: cgroup.kill, or where
// the kernel lacks it, freeze the cgroup (nothing forks meanwhile), kill
// each process, thaw.
func (j *jobCgroup) kill() {
	if j.c.kill {
		err := writeCgroup(j.dir, "cgroup.kill", "1")
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return
		}
	}
	frozen := writeCgroup(j.dir, "cgroup.freeze", "1") == nil
	for range 20 {
		pids := j.procs()
		if len(pids) == 0 {
			break
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
	if frozen {
		_ = writeCgroup(j.dir, "cgroup.freeze", "0")
	}
}

// procs lists the processes in the job's cgroup.
func (j *jobCgroup) procs() []int {
	b, err := os.ReadFile(filepath.Join(j.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// populated reports whether a process is in the job's cgroup.
func (j *jobCgroup) populated() bool {
	b, err := os.ReadFile(filepath.Join(j.dir, "cgroup.events"))
	return err == nil && strings.Contains(string(b), "populated 1")
}

// finish removes the job's cgroups once its processes are gone (kill was
// called) and returns how many of them the kernel killed for going over
// the memory limit.
func (j *jobCgroup) finish() (oomKills int64) {
	j.closeFiles(true)
	if j.limits.memoryMB > 0 {
		oomKills = j.oomKills()
	}
	j.remove()
	return oomKills
}

// abort removes the job's cgroups when its process did not start.
func (j *jobCgroup) abort() {
	j.closeFiles(true)
	j.remove()
}

func (j *jobCgroup) remove() {
	for _, d := range append(append([]string(nil), j.v1...), j.dir) {
		if err := removeWhenEmpty(d); err != nil && j.c.log != nil {
			j.c.log.Warn("executor: remove job cgroup", "dir", d, "err", err)
		}
	}
}

// cgroupEmptyWait bounds how long a killed job's cgroup may take to empty
// (its processes exit in microseconds unless stuck in the kernel).
const cgroupEmptyWait = 5 * time.Second

// removeWhenEmpty removes a cgroup directory, waiting for its processes
// to be gone; one already removed is fine.
func removeWhenEmpty(dir string) error {
	deadline := time.Now().Add(cgroupEmptyWait)
	pause := time.Millisecond
	for {
		err := syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}
