package executor_test

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// latencies collects per-job round trips and reports jobs/s, p50 and p99.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// p returns the q-quantile in µs.
func (l *latencies) p(q float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return 0
	}
	sort.Slice(l.d, func(i, j int) bool { return l.d[i] < l.d[j] })
	return float64(l.d[int(q*float64(len(l.d)-1))].Microseconds())
}

func (l *latencies) report(b *testing.B, elapsed time.Duration) {
	b.ReportMetric(float64(len(l.d))/elapsed.Seconds(), "jobs/s")
	b.ReportMetric(l.p(0.50), "p50-µs")
	b.ReportMetric(l.p(0.99), "p99-µs")
	b.ReportMetric(0, "ns/op")
}

// spread runs jobs 1..n on the given number of goroutines (worker 0, 1,
// …), each taking the next job as it finishes one, and returns when all
// are done.
func spread(n, workers int, job func(worker, i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				job(w, i)
			}
		}()
	}
	for i := 1; i <= n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}

// timed runs f and adds its duration to lat.
func timed(lat *latencies, f func()) {
	start := time.Now()
	f()
	lat.add(time.Since(start))
}

// benchRunner starts a runner on a fresh redis-server for a benchmark. The
// returned harness's store is a second one, for the submitting side: its
// WaitJob calls block connections, which must not come out of the
// runner's pool (4 connections per context DB).
func benchRunner(b *testing.B, concurrency int, hook func(uint64, *model.RunnerJob)) *harness {
	b.Helper()
	return benchRunnerWith(b, concurrency, hook, nil)
}

// benchRunnerWith is benchRunner with tune, when not nil, applied to the
// runner's config.
func benchRunnerWith(b *testing.B, concurrency int, hook func(uint64, *model.RunnerJob), tune func(*executor.Config)) *harness {
	b.Helper()
	srv := testredis.Start(b)
	h := &harness{srv: srv, dir: b.TempDir()}
	var err error
	if h.st, err = openStore(b, srv.URL); err != nil {
		b.Fatal(err)
	}
	cfg := h.config()
	cfg.Concurrency = concurrency
	if tune != nil {
		tune(&cfg)
	}
	startBench(b, h, cfg, hook)
	if h.st, err = openStore(b, srv.URL); err != nil {
		b.Fatal(err)
	}
	return h
}

// roundTrip enqueues one job through the store and waits for its end. Job
// ids are chosen by the caller (as in the raw cycle), so the store does not
// allocate them with an extra INCR. It returns when the enqueue returned.
func roundTrip(b *testing.B, h *harness, caller, id uint64, typ, script string, lat *latencies) time.Time {
	ctx := context.Background()
	t0 := time.Now()
	j := &model.RunnerJob{ID: id, CallerID: caller, ContextID: 1, ScriptType: typ, Script: script}
	if err := h.st.Jobs.EnqueueJob(ctx, j); err != nil {
		b.Error(err)
		return t0
	}
	queued := time.Now()
	defer func() { lat.add(time.Since(t0)) }()
	got, err := h.st.Jobs.WaitJob(ctx, 1, fmt.Sprintf("job:%d:%d", caller, j.ID))
	if err != nil || got.Status != model.JobFinished {
		b.Errorf("job %d: %+v %v", j.ID, got, err)
	}
	return queued
}

// BenchmarkNoopJob: enqueue via the store → built-in noop type → finished,
// one job in flight: the runner's dispatch overhead end to end. It also
// reports runner-p50-µs: from the enqueue's return to the runner's
// OnJobDone hook (wake-up, claim, completion write) — the runner's share.
func BenchmarkNoopJob(b *testing.B) {
	var mu sync.Mutex
	done := make(map[uint64]time.Time, b.N)
	h := benchRunner(b, 2, func(_ uint64, j *model.RunnerJob) {
		mu.Lock()
		done[j.ID] = time.Now()
		mu.Unlock()
	})
	queued := make([]time.Time, b.N)
	var lat latencies
	b.ResetTimer()
	t0 := time.Now()
	for i := range b.N {
		queued[i] = roundTrip(b, h, 1, uint64(i+1), "noop", "", &lat)
	}
	lat.report(b, time.Since(t0))
	var runner latencies
	waitFor(b, "hooks", func() bool { mu.Lock(); defer mu.Unlock(); return len(done) == b.N })
	for i, q := range queued {
		runner.add(done[uint64(i+1)].Sub(q))
	}
	b.ReportMetric(runner.p(0.5), "runner-p50-µs")
}

// BenchmarkRawRedisCycle is the hand-written baseline of the same cycle:
// client HSET+LPUSH (pipelined), worker BLMOVE, HSET started, HSET
// finished, LPUSH reply, LREM; client BLPOP reply. One job in flight.
func BenchmarkRawRedisCycle(b *testing.B) {
	cycle, _ := rawCycle(b)
	var lat latencies
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		timed(&lat, func() { cycle(i + 1) })
	}
	lat.report(b, time.Since(t0))
}

// rawCycle starts a redis-server and the raw worker (stopped at cleanup)
// and returns one client round of the raw cycle, for job i.
func rawCycle(b *testing.B) (func(i int), *testredis.Server) {
	srv := testredis.Start(b)
	ctx, cancel := context.WithCancel(context.Background())
	worker := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	client := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); rawWorker(ctx, worker) }()
	b.Cleanup(func() { cancel(); wg.Wait(); worker.Close(); client.Close() })
	return func(i int) {
		if err := rawSubmit(client, fmt.Sprintf("job:1:%d", i), i, "noop", ""); err != nil {
			b.Fatal(err)
		}
	}, srv
}

// rawSubmit is the raw cycle's client side: HSET+LPUSH in one pipeline,
// then BLPOP the reply.
func rawSubmit(c *redis.Client, key string, id int, typ, script string) error {
	ctx := context.Background()
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, key, "id", id, "caller_id", 1, "script_type", typ, "script", script, "status", "dispatched")
		p.LPush(ctx, "queue:"+typ, key)
		return nil
	})
	if err == nil {
		err = c.BLPop(ctx, 10*time.Second, "reply:"+key).Err()
	}
	return err
}

func rawWorker(ctx context.Context, c *redis.Client) {
	for ctx.Err() == nil {
		key, err := c.BLMove(ctx, "queue:noop", "processing:raw", "RIGHT", "LEFT", time.Second).Result()
		if err != nil {
			continue
		}
		c.HSet(ctx, key, "status", "started")
		c.HSet(ctx, key, "status", "finished", "result", "{}")
		c.LPush(ctx, "reply:"+key, "finished")
		c.LRem(ctx, "processing:raw", 1, key)
	}
}

// BenchmarkShTrue: sh jobs running `true` through the runner at
// concurrency 2, with 4 jobs in flight so both slots stay busy.
func BenchmarkShTrue(b *testing.B) {
	shJobs(b, benchRunner(b, 2, nil), false)
}

// BenchmarkRawForkExec is the baseline: os/exec of `sh -c true` from 2
// goroutines.
func BenchmarkRawForkExec(b *testing.B) {
	var lat latencies
	b.ResetTimer()
	t0 := time.Now()
	spread(b.N, 2, func(int, int) { timed(&lat, func() { forkExecTrue(b) }) })
	lat.report(b, time.Since(t0))
}

func forkExecTrue(b *testing.B) {
	if err := exec.Command("sh", "-c", "true").Run(); err != nil {
		b.Error(err)
	}
}
