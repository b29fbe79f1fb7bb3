package executor

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cpuPeriod is the CFS period the cpu limit is a share of (µs), the
// kernel's default: cpu 0.5 = 50 ms of CPU time per 100 ms.
const cpuPeriod = 100000

// cpuQuota is the CPU time (µs) per cpuPeriod for cpu cores: at least
// 1 ms, the kernel's minimum, and bounded so it cannot overflow.
func cpuQuota(cores float64) int64 {
	q := math.Round(min(cores, 1<<20) * cpuPeriod)
	return max(int64(q), 1000)
}

// memoryBytes is the memory limit in bytes for mb MiB.
func memoryBytes(mb int64) string {
	return strconv.FormatInt(min(mb, math.MaxInt64>>20)<<20, 10)
}

// setLimitV2 writes ctl's limit into the job's cgroup2 directory. Under a
// memory limit swap is off (else the job would go on in swap) and an OOM
// kill ends the whole job, not only its largest process: a job is one
// unit, as a Nomad task is.
func setLimitV2(dir, ctl string, lim jobLimits) error {
	if ctl == "pids" {
		return writeCgroup(dir, "pids.max", strconv.FormatInt(lim.pids, 10))
	}
	if ctl == "cpu" {
		return writeCgroup(dir, "cpu.max", strconv.FormatInt(cpuQuota(lim.cpu), 10)+" "+strconv.Itoa(cpuPeriod))
	}
	if err := writeCgroup(dir, "memory.max", memoryBytes(lim.memoryMB)); err != nil {
		return err
	}
	if err := writeOptional(dir, "memory.swap.max", "0"); err != nil {
		return err
	}
	return writeOptional(dir, "memory.oom.group", "1")
}

// setLimitV1 writes ctl's limit into the job's directory of its cgroup v1
// hierarchy; swap counts against the memory limit where the kernel
// accounts for it (memsw).
func setLimitV1(dir, ctl string, lim jobLimits) error {
	if ctl == "pids" {
		return writeCgroup(dir, "pids.max", strconv.FormatInt(lim.pids, 10))
	}
	if ctl == "cpu" {
		if err := writeCgroup(dir, "cpu.cfs_period_us", strconv.Itoa(cpuPeriod)); err != nil {
			return err
		}
		return writeCgroup(dir, "cpu.cfs_quota_us", strconv.FormatInt(cpuQuota(lim.cpu), 10))
	}
	b := memoryBytes(lim.memoryMB)
	if err := writeCgroup(dir, "memory.limit_in_bytes", b); err != nil {
		return err
	}
	return writeOptional(dir, "memory.memsw.limit_in_bytes", b)
}

// writeOptional writes a file the kernel may lack (swap accounting off,
// older kernels).
func writeOptional(dir, file, value string) error {
	err := writeCgroup(dir, file, value)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// oomKills is how many of the job's processes the kernel killed for going
// over its memory limit: oom_kill in memory.events (cgroup2) or
// memory.oom_control (cgroup v1).
func (j *jobCgroup) oomKills() int64 {
	if j.memV1 != "" {
		return counter(filepath.Join(j.memV1, "memory.oom_control"), "oom_kill")
	}
	return counter(filepath.Join(j.dir, "memory.events"), "oom_kill")
}

// counter reads "name N" from a flat-keyed cgroup file; 0 when absent.
func counter(path, name string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == name {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
