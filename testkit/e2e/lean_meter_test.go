package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// The lean benchmarks (issue 38) measure an agent from outside: its
// process from /proc, its redis-server from INFO. testkit/cmd/bench/
// asynqbase measures its asynq baseline the same way (its own copy: a
// module of its own imports nothing from here).

// leanUsage is a redis-server's work so far: commands processed, CPU
// (user + system), keys over all DBs, and calls per command.
type leanUsage struct {
	commands int64
	cpu      time.Duration
	keys     int64
	calls    map[string]int64
}

// leanSample reads INFO stats, cpu, keyspace and commandstats: one command.
func leanSample(ctx context.Context, c *redis.Client) (leanUsage, error) {
	info, err := c.Info(ctx, "stats", "cpu", "keyspace", "commandstats").Result()
	if err != nil {
		return leanUsage{}, fmt.Errorf("INFO: %w", err)
	}
	u := leanUsage{calls: map[string]int64{}}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "total_commands_processed":
			u.commands, _ = strconv.ParseInt(v, 10, 64)
		case k == "used_cpu_user" || k == "used_cpu_sys":
			f, _ := strconv.ParseFloat(v, 64)
			u.cpu += time.Duration(f * float64(time.Second))
		case strings.HasPrefix(k, "db"): // keys=3,expires=0,avg_ttl=0
			u.keys += firstCount(v, "keys=")
		case strings.HasPrefix(k, "cmdstat_"): // calls=2,usec=…
			u.calls[strings.TrimPrefix(k, "cmdstat_")] = firstCount(v, "calls=")
		}
	}
	return u, nil
}

func firstCount(v, prefix string) int64 {
	n, _, _ := strings.Cut(strings.TrimPrefix(v, prefix), ",")
	i, _ := strconv.ParseInt(n, 10, 64)
	return i
}

// sub is the work between two samples, less the one INFO of the first.
func (u leanUsage) sub(v leanUsage) leanUsage {
	d := leanUsage{commands: u.commands - v.commands - 1, cpu: u.cpu - v.cpu, keys: u.keys - v.keys, calls: map[string]int64{}}
	for k, n := range u.calls {
		if n -= v.calls[k]; k == "info" {
			n--
		}
		if n != 0 {
			d.calls[k] = n
		}
	}
	return d
}

// top names the commands by calls, most first, each per unit of per
// ("12.00/s" over a window's seconds, or per job).
func (u leanUsage) top(per float64, unit string) string {
	names := make([]string, 0, len(u.calls))
	for k := range u.calls {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return u.calls[names[i]] > u.calls[names[j]] })
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s %.2f%s, ", k, float64(u.calls[k])/per, unit)
	}
	return strings.TrimSuffix(b.String(), ", ")
}

// redisPID is the server's process id (INFO server).
func redisPID(ctx context.Context, c *redis.Client) (int, error) {
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "process_id:"); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, fmt.Errorf("INFO server has no process_id")
}

// procCPU is the CPU a process has run so far, summed over its threads'
// schedstat (nanoseconds; /proc/<pid>/stat counts 10 ms ticks, too coarse
// for an idle process).
func procCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "schedstat"))
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
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

// selfCPU is this process's CPU so far, user + system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// keyKinds counts the keys of one DB by their name up to the first ':'
// (job, timeline, logs, …), for the log.
func keyKinds(ctx context.Context, c *redis.Client) string {
	kinds := map[string]int{}
	iter := c.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		k, _, _ := strings.Cut(iter.Val(), ":")
		kinds[k]++
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return kinds[names[i]] > kinds[names[j]] })
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s %d, ", k, kinds[k])
	}
	return strings.TrimSuffix(b.String(), ", ")
}
