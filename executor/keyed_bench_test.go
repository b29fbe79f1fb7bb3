package executor_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// BenchmarkKeyedJobOverhead: noop jobs, one in flight, alternately with
// a concurrency key and without, in the same run: from the enqueue's
// return to the runner's OnJobStarted hook (wake-up, claim — with the
// key's gate for a keyed job — and the start), and end to end (the keyed
// job also gives its place back in its completion). Reports both p50s and
// their ratio, keyed/unkeyed.
func BenchmarkKeyedJobOverhead(b *testing.B) {
	srv := testredis.Start(b)
	h := &harness{srv: srv, dir: b.TempDir()}
	var err error
	if h.st, err = openStore(b, srv.URL); err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	started := make(map[uint64]time.Time, b.N)
	r, err := executor.New(h.config(), parts(h.st), nil)
	if err != nil {
		b.Fatal(err)
	}
	r.OnJobStarted(func(_ uint64, j *model.RunnerJob) {
		mu.Lock()
		started[j.ID] = time.Now()
		mu.Unlock()
	})
	if err := r.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Shutdown(context.Background()) })
	if h.st, err = openStore(b, srv.URL); err != nil { // the submitting side's own pool
		b.Fatal(err)
	}
	ctx := context.Background()
	var start [2]latencies // [0] unkeyed, [1] keyed
	var total [2]latencies
	b.ResetTimer()
	for i := range b.N {
		kind := i % 2
		j := &model.RunnerJob{ID: uint64(i + 1), CallerID: 1, ContextID: 1, ScriptType: "noop"}
		if kind == 1 {
			j.SetConcurrency(model.Concurrency{Key: "bench"})
		}
		t0 := time.Now()
		if err := h.st.Jobs.EnqueueJob(ctx, j); err != nil {
			b.Fatal(err)
		}
		queued := time.Now()
		got, err := h.st.Jobs.WaitJob(ctx, 1, fmt.Sprintf("job:1:%d", j.ID))
		if err != nil || got.Status != model.JobFinished {
			b.Fatalf("job %d: %+v %v", j.ID, got, err)
		}
		total[kind].add(time.Since(t0))
		mu.Lock()
		start[kind].add(started[j.ID].Sub(queued))
		mu.Unlock()
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(start[0].p(0.5), "unkeyed-start-p50-µs")
	b.ReportMetric(start[1].p(0.5), "keyed-start-p50-µs")
	b.ReportMetric(total[0].p(0.5), "unkeyed-p50-µs")
	b.ReportMetric(total[1].p(0.5), "keyed-p50-µs")
	if u := start[0].p(0.5); u > 0 {
		b.ReportMetric(start[1].p(0.5)/u, "start-ratio")
	}
	if u := total[0].p(0.5); u > 0 {
		b.ReportMetric(total[1].p(0.5)/u, "total-ratio")
	}
}

// BenchmarkKeyedBacklog: b.N noop jobs queued at once, all of one key,
// on a runner with 4 slots (the key runs them one at a time: each end
// promotes the next parked job), beside b.N unkeyed noop jobs on a runner
// with 1 slot (one at a time, no key), each on its own redis-server, in
// the same run. Reports both rates and keyed/unkeyed of the time per job.
func BenchmarkKeyedBacklog(b *testing.B) {
	keyed := backlogRate(b, 4, model.Concurrency{Key: "bench"})
	plain := backlogRate(b, 1, model.Concurrency{})
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(keyed, "keyed-jobs/s")
	b.ReportMetric(plain, "unkeyed-serial-jobs/s")
	if keyed > 0 {
		b.ReportMetric(plain/keyed, "time-per-job-ratio")
	}
}

// backlogRate queues b.N noop jobs with concurrency c on a fresh runner
// with the given slots and returns how many ended per second.
func backlogRate(b *testing.B, slots int, c model.Concurrency) float64 {
	b.Helper()
	var mu sync.Mutex
	ended := 0
	all := make(chan struct{})
	h := benchRunner(b, slots, func(uint64, *model.RunnerJob) {
		mu.Lock()
		defer mu.Unlock()
		if ended++; ended == b.N {
			close(all)
		}
	})
	ctx := context.Background()
	jobs := make([]*model.RunnerJob, b.N)
	for i := range jobs {
		jobs[i] = &model.RunnerJob{ID: uint64(i + 1), CallerID: 1, ContextID: 1, ScriptType: "noop"}
		jobs[i].SetConcurrency(c)
	}
	b.ResetTimer()
	t0 := time.Now()
	for _, j := range jobs {
		if err := h.st.Jobs.EnqueueJob(ctx, j); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-time.After(5 * time.Minute):
		mu.Lock()
		defer mu.Unlock()
		b.Fatalf("only %d of %d jobs ended", ended, b.N)
	}
	return float64(b.N) / time.Since(t0).Seconds()
}
