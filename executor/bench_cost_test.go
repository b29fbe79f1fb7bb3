package executor_test

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// The cost benchmarks repeat BenchmarkNoopJob, BenchmarkRawRedisCycle,
// BenchmarkShTrue and BenchmarkRawForkExec with a meter around the measured loop, to show
// where the time goes: Redis commands and redis-server CPU per job, this
// process's CPU per job (runner and submitting client) and the CPU of the
// job processes it reaped. Background work (sweeper, lease heartbeats) is
// measured over an idle half second first and taken out. On 2 vCPUs,
// jobs/s cannot exceed 2 s of CPU divided by the CPU one job costs.

// costWindow measures f (which completes n jobs) after an idle window.
func costWindow(b *testing.B, n int, f func(), servers ...*testredis.Server) {
	ctx := context.Background()
	m := testredis.NewMeter(b, servers...)
	var idle testredis.Cost
	if len(servers) > 0 {
		if err := m.Start(ctx); err != nil {
			b.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		var err error
		if idle, err = m.Stop(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	f()
	el := time.Since(start)
	b.StopTimer()
	c, err := m.Stop(ctx)
	if err != nil {
		b.Fatal(err)
	}
	c.Without(idle).Report(b, n)
	b.ReportMetric(float64(n)/el.Seconds(), "jobs/s")
}

// BenchmarkNoopJobCost: noop jobs through the store and the runner, one
// in flight (as BenchmarkNoopJob).
func BenchmarkNoopJobCost(b *testing.B) {
	h := benchRunner(b, 2, nil)
	var lat latencies
	for i := range 20 { // warm
		roundTrip(b, h, 2, uint64(i+1), "noop", "", &lat)
	}
	costWindow(b, b.N, func() {
		for i := range b.N {
			roundTrip(b, h, 1, uint64(i+1), "noop", "", &lat)
		}
	}, h.srv)
}

// BenchmarkShTrueCost: sh `true` jobs at concurrency 2 with 4 submitters
// (as BenchmarkShTrue).
func BenchmarkShTrueCost(b *testing.B) {
	h := benchRunner(b, 2, nil)
	var lat latencies
	for i := range 20 { // warm
		roundTrip(b, h, 9, uint64(i+1), "sh", "true", &lat)
	}
	costWindow(b, b.N, func() {
		spread(b.N, 4, func(w, i int) { roundTrip(b, h, uint64(w+1), uint64(i), "sh", "true", &lat) })
	}, h.srv)
}

// BenchmarkRawForkExecCost: os/exec of `sh -c true` from 2 goroutines (as
// BenchmarkRawForkExec).
func BenchmarkRawForkExecCost(b *testing.B) {
	costWindow(b, b.N, func() { spread(b.N, 2, func(int, int) { forkExecTrue(b) }) })
}

// BenchmarkRawRedisCycleCost: the hand-written raw Redis job cycle, one in
// flight (as BenchmarkRawRedisCycle): 8 commands per job by construction.
func BenchmarkRawRedisCycleCost(b *testing.B) {
	cycle, srv := rawCycle(b)
	for i := range 20 { // warm
		cycle(1_000_000 + i)
	}
	costWindow(b, b.N, func() {
		for i := range b.N {
			cycle(i + 1)
		}
	}, srv)
}
