package executor

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Isolation says how a Runner contains its jobs' processes: each job in
// its own cgroup (cgroup v2), so that timeout and stop kill everything the
// job started — setsid daemons included — or, where that is not possible,
// each job in its own process group, which a child that calls setsid
// leaves.
type Isolation struct {
	// Cgroup is the runner's cgroup2 directory, under which each job gets
	// one of its own; "" = process groups only.
	Cgroup string
	// Kill is how a job's cgroup is killed: "cgroup.kill", or "freeze+kill"
	// on kernels without cgroup.kill (before Linux 5.14).
	Kill string
	// Limits lists the per-job limits that are enforced ("memory" for
	// memory_mb, "cpu" for cpu); LimitsVia says through which hierarchy
	// ("cgroup2", or "cgroup v1" on hybrid machines whose memory and cpu
	// controllers are bound to cgroup v1).
	Limits    []string
	LimitsVia string
	// Note says why cgroups are not used, or why some limits are not.
	Note string
}

// Cgroups reports whether jobs run in cgroups.
func (i Isolation) Cgroups() bool { return i.Cgroup != "" }

// String is one line for `hyphae info`, e.g. "cgroup2 at
// /sys/fs/cgroup/…/hyphae-x (kill: cgroup.kill), limits: memory, cpu (cgroup v1)"
// or "process groups: no cgroup2 hierarchy is mounted".
func (i Isolation) String() string {
	if !i.Cgroups() {
		if i.Note == "" {
			return "process groups (runner not started)"
		}
		return "process groups: " + i.Note
	}
	s := fmt.Sprintf("cgroup2 at %s (kill: %s), limits: ", i.Cgroup, i.Kill)
	if len(i.Limits) == 0 {
		s += "none"
	} else {
		s += strings.Join(i.Limits, ", ") + " (" + i.LimitsVia + ")"
	}
	if i.Note != "" {
		s += "; " + i.Note
	}
	return s
}

// Isolation returns how this runner contains its jobs; it is known once
// Start has run.
func (r *Runner) Isolation() Isolation {
	r.mu.Lock()
	defer r.mu.Unlock()
	iso := r.iso
	iso.Limits = append([]string(nil), iso.Limits...)
	return iso
}

// jobLimits are the resource limits a job asks for (0 = none).
type jobLimits struct {
	memoryMB int64
	cpu      float64
	pids     int64 // a contained job's default, not the job's own field
}

// describe names the limit as the job spelled it, e.g. "memory_mb 50".
func (l jobLimits) describe(controller string) string {
	switch controller {
	case "memory":
		return "memory_mb " + strconv.FormatInt(l.memoryMB, 10)
	case "pids":
		return "pids " + strconv.FormatInt(l.pids, 10)
	}
	return "cpu " + strconv.FormatFloat(l.cpu, 'f', -1, 64)
}

// fieldName is the job field behind a controller's limit.
func (jobLimits) fieldName(controller string) string {
	if controller == "memory" {
		return "memory_mb"
	}
	return controller
}

// asked lists the controllers the limits need.
func (l jobLimits) asked() []string {
	var out []string
	if l.memoryMB > 0 {
		out = append(out, "memory")
	}
	if l.cpu > 0 {
		out = append(out, "cpu")
	}
	if l.pids > 0 {
		out = append(out, "pids")
	}
	return out
}

// jobCgroupName names the cgroup of a job attempt after its directory:
// job-<context>-<caller>-<id>-<attempt>, or hero-<id> for a hero job, so a
// restarted runner finds the cgroup of an attempt it reclaims.
func jobCgroupName(ctxID uint64, dir string) string {
	if ctxID == 0 {
		return "hero-" + filepath.Base(dir)
	}
	return "job-" + strconv.FormatUint(ctxID, 10) + "-" + filepath.Base(dir)
}

// contain sets up the jobs' cgroups, or notes why there are none (Start).
func (r *Runner) contain() {
	cg, iso := setupCgroups(r.cfg, r.log)
	r.mu.Lock()
	r.cg, r.iso = cg, iso
	r.mu.Unlock()
}

// uncontain removes the runner's cgroups (Shutdown, or a failed Start).
func (r *Runner) uncontain() {
	if r.cg != nil {
		r.cg.remove()
	}
}
