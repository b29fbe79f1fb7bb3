package executor_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
)

// benchRunnerIsolated is benchRunner with the runner's own jobs run as
// isolation says (host or contained), so the two measure the same path
// but for containment.
func benchRunnerIsolated(b *testing.B, concurrency int, isolation string) *harness {
	b.Helper()
	if isolation == model.IsolationContained && os.Geteuid() != 0 {
		b.Skip("the root mode of containment needs root")
	}
	return benchRunnerWith(b, concurrency, nil, func(c *executor.Config) { c.Contain.Own = isolation })
}

// shJobs runs sh `true` jobs through h from 2×GOMAXPROCS submitters, or
// one at a time with serial.
func shJobs(b *testing.B, h *harness, serial bool) {
	var lat latencies
	var next sync.Mutex
	caller := uint64(0)
	if !serial {
		b.SetParallelism(2)
	}
	b.ResetTimer()
	t0 := time.Now()
	if serial {
		for id := uint64(1); id <= uint64(b.N); id++ {
			roundTrip(b, h, 1, id, "sh", "true", &lat)
		}
		lat.report(b, time.Since(t0))
		return
	}
	b.RunParallel(func(pb *testing.PB) {
		next.Lock()
		caller++
		me := caller
		next.Unlock()
		for id := uint64(1); pb.Next(); id++ {
			roundTrip(b, h, me, id, "sh", "true", &lat)
		}
	})
	lat.report(b, time.Since(t0))
}

// BenchmarkShContained: sh `true` jobs, contained (namespaces, the data
// dir masked, another uid), at concurrency 2 with 4 submitters; beside
// BenchmarkShUncontained, the same jobs on the host, in the same run.
func BenchmarkShContained(b *testing.B) {
	shJobs(b, benchRunnerIsolated(b, 2, model.IsolationContained), false)
}

// BenchmarkShUncontained is BenchmarkShContained's baseline.
func BenchmarkShUncontained(b *testing.B) {
	shJobs(b, benchRunnerIsolated(b, 2, model.IsolationHost), false)
}

// BenchmarkShStartContained: one contained sh `true` job at a time,
// enqueue → finished: p50 is a contained job's start and end.
func BenchmarkShStartContained(b *testing.B) {
	shJobs(b, benchRunnerIsolated(b, 1, model.IsolationContained), true)
}

// BenchmarkShStartUncontained is BenchmarkShStartContained's baseline.
func BenchmarkShStartUncontained(b *testing.B) {
	shJobs(b, benchRunnerIsolated(b, 1, model.IsolationHost), true)
}
