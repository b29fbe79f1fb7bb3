package retention_test

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/retention"
)

var (
	flatJobs   = flag.Int("retention.jobs", 100000, "BenchmarkRetentionFlat: jobs per run")
	flatWindow = flag.Duration("retention.window", 10*time.Second, "BenchmarkRetentionFlat: retention max_age")
	flatMax    = flag.Int("retention.max_jobs", 0, "BenchmarkRetentionFlat: retention max_jobs (0: the default)")
)

// BenchmarkRetentionFlat runs -retention.jobs jobs through a real runner
// (one in 20 an sh job that logs a few lines and leaves a job directory,
// the rest noop) and samples Redis' used_memory, the data dir's disk use
// and the context DB's key count as they go: with retention (max_age
// -retention.window, max_jobs -retention.max_jobs, a sweep a second) they stop
// growing once past the window; without it (baseline) they grow with the
// jobs. Run with -benchtime=1x -v to see the samples:
//
//	go test -run - -bench RetentionFlat -benchtime=1x -v ./context/retention -args -retention.jobs=100000
func BenchmarkRetentionFlat(b *testing.B) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "retention", false: "baseline"}[on]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				runFlat(b, on)
			}
		})
	}
}

// flatSample is one measurement of a run.
type flatSample struct {
	at        time.Duration
	done      int64
	memory    int64
	disk      int64
	keys      int64
	jobHashes int64
}

func runFlat(b *testing.B, on bool) {
	h := &harness{}
	var done atomic.Int64
	*h = *newBenchHarness(b, func(uint64, *model.RunnerJob) { done.Add(1) })
	if on {
		h.janitor(b, retention.Config{MaxAge: *flatWindow, MaxJobs: *flatMax, Interval: time.Second})
	}
	n := *flatJobs
	every := max(n/20, 1)
	var samples []flatSample
	t0 := time.Now()
	next := int64(every)
	submitted := 0
	for submitted < n || done.Load() < int64(n) {
		if submitted < n && int64(submitted)-done.Load() < 2000 {
			submitted += h.submitBatch(b, submitted, min(200, n-submitted))
			continue
		}
		if d := done.Load(); d >= next || d >= int64(n) {
			samples = append(samples, h.sample(b, time.Since(t0), d))
			next += int64(every)
		}
		time.Sleep(5 * time.Millisecond)
	}
	elapsed := time.Since(t0)
	last := h.sample(b, elapsed, done.Load())
	samples = append(samples, last)
	b.Logf("%d jobs in %v (%.0f jobs/s), retention %v (max_age %v)", n, elapsed.Round(time.Millisecond),
		float64(n)/elapsed.Seconds(), on, *flatWindow)
	b.Logf("%8s %8s %14s %12s %9s %9s", "elapsed", "jobs", "used_memory", "disk", "keys", "job:*")
	for _, s := range samples {
		b.Logf("%8s %8d %11.1f MB %9.1f MB %9d %9d", s.at.Round(100*time.Millisecond), s.done,
			float64(s.memory)/1e6, float64(s.disk)/1e6, s.keys, s.jobHashes)
	}
	b.ReportMetric(float64(last.memory)/1e6, "MB-redis")
	b.ReportMetric(float64(last.disk)/1e6, "MB-disk")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(0, "ns/op")
}

// newBenchHarness is newHarness with a hook on every job's end.
func newBenchHarness(b *testing.B, hook func(uint64, *model.RunnerJob)) *harness {
	h := newStoreHarness(b)
	h.startRunner(b, hook)
	return h
}

// submitBatch enqueues count jobs from number first+1 on in one
// pipeline: every 20th an sh job that logs, the others noop.
func (h *harness) submitBatch(b *testing.B, first, count int) int {
	ctx := context.Background()
	p := h.c.Pipeline()
	for i := first + 1; i <= first+count; i++ {
		typ, script := "noop", ""
		if i%20 == 0 {
			typ, script = "sh", `echo "job `+strconv.Itoa(i)+` says hello"; echo done`
		}
		key := fmt.Sprintf("job:1:%d", i)
		p.HSet(ctx, key, "id", i, "caller_id", 1, "context_id", 1, "script", script,
			"script_type", typ, "status", "dispatched")
		p.LPush(ctx, "queue:"+typ, key)
	}
	if _, err := p.Exec(ctx); err != nil {
		b.Fatal(err)
	}
	return count
}

// sample measures Redis memory, the DB's keys and the data dir's disk use.
func (h *harness) sample(b *testing.B, at time.Duration, done int64) flatSample {
	ctx := context.Background()
	info := h.c.Info(ctx, "memory").Val()
	s := flatSample{at: at, done: done, disk: diskUse(h.dir), keys: h.c.DBSize(ctx).Val()}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			s.memory, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	var cursor uint64
	for {
		keys, next, err := h.c.ScanType(ctx, cursor, "job:*", 5000, "hash").Result()
		if err != nil {
			b.Fatal(err)
		}
		s.jobHashes += int64(len(keys))
		if cursor = next; cursor == 0 {
			break
		}
	}
	return s
}

// diskUse is the disk space (allocated blocks) of everything under dir.
func diskUse(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := e.Info(); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			}
		}
		return nil
	})
	return n
}
