package asynqbase

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procCPU is the CPU a process has run so far, summed over its threads'
// schedstat (nanoseconds; /proc/<pid>/stat counts 10 ms ticks, too coarse
// for an idle process). testkit/e2e's lean benchmarks read it the same way.
func procCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			ns += n
		}
	}
	return time.Duration(ns)
}

// rssMiB is a process's resident set (VmRSS) in MiB.
func rssMiB(pid int) float64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
