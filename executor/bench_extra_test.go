package executor_test

import (
	"context"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/internal/testredis"
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
		var wg sync.WaitGroup
		next := make(chan uint64)
		for caller := uint64(1); caller <= 4; caller++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := range next {
					roundTrip(b, h, caller, id, "sh", "true", &lat)
				}
			}()
		}
		for i := range b.N {
			next <- uint64(i + 1)
		}
		close(next)
		wg.Wait()
	}, h.srv)
}

// BenchmarkRawForkExecCost: os/exec of `sh -c true` from 2 goroutines (as
// BenchmarkRawForkExec).
func BenchmarkRawForkExecCost(b *testing.B) {
	costWindow(b, b.N, func() {
		var wg sync.WaitGroup
		jobs := make(chan struct{})
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range jobs {
					if err := exec.Command("sh", "-c", "true").Run(); err != nil {
						b.Error(err)
					}
				}
			}()
		}
		for range b.N {
			jobs <- struct{}{}
		}
		close(jobs)
		wg.Wait()
	})
}

// BenchmarkRawRedisCycleCost: the hand-written raw Redis job cycle, one in
// flight (as BenchmarkRawRedisCycle): 8 commands per job by construction.
func BenchmarkRawRedisCycleCost(b *testing.B) {
	srv := testredis.Start(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	worker := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	client := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer worker.Close()
	defer client.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); rawWorker(ctx, worker) }()
	cycle := func(i int) {
		key := fmt.Sprintf("job:1:%d", i)
		_, err := client.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.HSet(ctx, key, "id", i, "caller_id", 1, "script_type", "noop", "status", "dispatched")
			p.LPush(ctx, "queue:noop", key)
			return nil
		})
		if err == nil {
			err = client.BLPop(ctx, 10*time.Second, "reply:"+key).Err()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range 20 { // warm
		cycle(1_000_000 + i)
	}
	costWindow(b, b.N, func() {
		for i := range b.N {
			cycle(i + 1)
		}
	}, srv)
	cancel()
	wg.Wait()
}
