package executor

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// cgroups is a runner's cgroup subtree: <agent's cgroup>/hyphae-<runner>/,
// with one cgroup per running job under it.
type cgroups struct {
	dir   string            // the runner's cgroup2 directory
	kill  bool              // cgroup.kill exists (else freeze, then SIGKILL each process)
	clone bool              // clone3 can start a process in its cgroup (CLONE_INTO_CGROUP)
	v2    map[string]bool   // controllers enabled for the job cgroups in cgroup2
	v1    map[string]string // controller → the runner's directory in its cgroup v1 hierarchy
	why   map[string]string // controller → why its limit cannot be enforced
	log   *slog.Logger
}

// limitControllers are the controllers behind memory_mb and cpu.
var limitControllers = []string{"memory", "cpu"}

// setupCgroups creates the runner's cgroup subtree where cgroup2 is
// usable and says what it offers; nil means process groups only.
func setupCgroups(cfg Config, log *slog.Logger) (*cgroups, Isolation) {
	if cfg.NoCgroups {
		return nil, Isolation{Note: "cgroups turned off in the configuration"}
	}
	h := theHost()
	if h.v2Own == "" {
		return nil, Isolation{Note: h.why}
	}
	name := runnerCgroupName(cfg)
	c := &cgroups{dir: filepath.Join(h.v2Own, name), v2: map[string]bool{}, v1: map[string]string{},
		why: map[string]string{}, log: log}
	if err := mkdirCgroup(c.dir); err != nil {
		return nil, Isolation{Note: fmt.Sprintf("cannot create %s: %v (run the agent as root, "+
			"or give it a delegated cgroup, e.g. systemd Delegate=yes)", c.dir, unwrapErrno(err))}
	}
	c.kill, c.clone = probeCgroups(c.dir)
	for _, ctl := range limitControllers {
		c.enableLimit(h, name, ctl)
	}
	c.enableLimit(h, name, "pids") // contained jobs' default limit (contain.go)
	if n := c.removeLeftovers(); n > 0 {
		log.Info("executor: killed what an earlier run of this runner left in its cgroups", "cgroups", n)
	}
	return c, c.isolation()
}

// runnerCgroupName is hyphae-<runner id>, plus a hash of the data dir when
// the id was chosen by hand: two runners on a host with one id (tests, or
// agents named alike) must not kill each other's jobs. A default id holds
// that hash already.
func runnerCgroupName(cfg Config) string {
	name := "hyphae-" + safeName(cfg.RunnerID)
	if cfg.RunnerID != defaultRunnerID(cfg.DataDir) {
		abs, err := filepath.Abs(cfg.DataDir)
		if err != nil {
			abs = cfg.DataDir
		}
		sum := sha256.Sum256([]byte(abs))
		name += "-" + hex.EncodeToString(sum[:4])
	}
	return name
}

// enableLimit makes controller ctl available to the job cgroups: through
// cgroup2 when it can, else through its cgroup v1 hierarchy (hybrid
// machines); else it records why not.
func (c *cgroups) enableLimit(h cgroupHost, name, ctl string) {
	err2 := c.enableV2(h, ctl)
	if err2 == nil {
		c.v2[ctl] = true
		return
	}
	own := h.v1[ctl]
	if own == "" {
		c.why[ctl] = err2.Error() + ", and no cgroup v1 " + ctl + " hierarchy is mounted"
		return
	}
	d := filepath.Join(own, name)
	if err := mkdirCgroup(d); err != nil {
		c.why[ctl] = fmt.Sprintf("%v, and cannot create %s: %v", err2, d, unwrapErrno(err))
		return
	}
	c.v1[ctl] = d
}

// enableV2 turns ctl on for the children of the runner's cgroup: in the
// agent's cgroup (moving the agent into a leaf first when its cgroup holds
// processes, which cgroup2 forbids for a cgroup that hands out
// controllers) and in the runner's.
func (c *cgroups) enableV2(h cgroupHost, ctl string) error {
	if !hasWord(filepath.Join(h.v2Own, "cgroup.controllers"), ctl) {
		return fmt.Errorf("no %s controller in cgroup2", ctl)
	}
	if !hasWord(filepath.Join(c.dir, "cgroup.controllers"), ctl) {
		err := writeCgroup(h.v2Own, "cgroup.subtree_control", "+"+ctl)
		if errors.Is(err, syscall.EBUSY) { // the agent's cgroup holds processes
			if err = moveToLeaf(h); err == nil {
				err = writeCgroup(h.v2Own, "cgroup.subtree_control", "+"+ctl)
			}
		}
		if err != nil {
			return fmt.Errorf("cannot enable the %s controller in %s: %v", ctl, h.v2Own, unwrapErrno(err))
		}
	}
	if err := writeCgroup(c.dir, "cgroup.subtree_control", "+"+ctl); err != nil {
		return fmt.Errorf("cannot enable the %s controller in %s: %v", ctl, c.dir, unwrapErrno(err))
	}
	return nil
}

// has reports whether jobs can be limited through controller ctl.
func (c *cgroups) has(ctl string) bool { return c.v2[ctl] || c.v1[ctl] != "" }

// isolation describes c for Runner.Isolation.
func (c *cgroups) isolation() Isolation {
	iso := Isolation{Cgroup: c.dir, Kill: "cgroup.kill"}
	if !c.kill {
		iso.Kill = "freeze+kill"
	}
	var via, notes []string
	for _, ctl := range limitControllers {
		switch {
		case c.v2[ctl]:
			iso.Limits, via = append(iso.Limits, ctl), append(via, "cgroup2")
		case c.v1[ctl] != "":
			iso.Limits, via = append(iso.Limits, ctl), append(via, "cgroup v1")
		default:
			notes = append(notes, jobLimits{}.fieldName(ctl)+" not enforced: "+c.why[ctl])
		}
	}
	if len(via) > 0 {
		iso.LimitsVia = via[0]
		if len(via) == 2 && via[0] != via[1] {
			iso.LimitsVia = "memory: " + via[0] + ", cpu: " + via[1]
		}
	}
	iso.Note = strings.Join(notes, "; ")
	return iso
}

// removeLeftovers kills and removes the job cgroups an earlier run of this
// runner left (it was killed with -9): their jobs were taken over or are
// reclaimed now, so what still runs there is an orphan.
func (c *cgroups) removeLeftovers() int {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() && (strings.HasPrefix(e.Name(), "job-") || strings.HasPrefix(e.Name(), "hero-")) {
			if c.killLeftover(e.Name()) {
				n++
			}
		}
	}
	return n
}

// killLeftover kills and removes the job cgroup name if it exists and
// reports whether processes were left in it.
func (c *cgroups) killLeftover(name string) bool {
	j := &jobCgroup{c: c, dir: filepath.Join(c.dir, name)}
	if _, err := os.Stat(j.dir); err != nil {
		return false
	}
	for ctl, d := range c.v1 {
		if _, err := os.Stat(filepath.Join(d, name)); err == nil {
			j.v1 = append(j.v1, filepath.Join(d, name))
			if ctl == "memory" {
				j.memV1 = filepath.Join(d, name)
			}
		}
	}
	busy := j.populated()
	j.kill()
	j.finish()
	return busy
}

// remove deletes the runner's cgroups when it stops (they are empty by
// then; a leftover job cgroup that could not be emptied keeps them).
func (c *cgroups) remove() {
	dirs := []string{c.dir}
	for _, d := range c.v1 {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			c.log.Warn("executor: remove the runner's cgroup", "dir", d, "err", err)
		}
	}
}

// mkdirCgroup creates a cgroup directory; one that exists is fine.
func mkdirCgroup(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

// writeCgroup writes one value to a cgroup interface file (no O_CREATE or
// O_TRUNC: the file exists, and the kernel reads each write whole).
func writeCgroup(dir, file, value string) error {
	f, err := os.OpenFile(filepath.Join(dir, file), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// hasWord reports whether the space-separated file lists word.
func hasWord(path, word string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, w := range strings.Fields(string(b)) {
		if w == word {
			return true
		}
	}
	return false
}

// unwrapErrno shortens "*PathError: open …: permission denied" to the
// errno, the directory being named by the caller.
func unwrapErrno(err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return err
}
