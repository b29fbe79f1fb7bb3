package scheduler_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
)

// BenchmarkFlowMemorySeries runs HYPHAE_BENCH_FLOWS (default 10) flows of
// 1,000 no-op jobs one after another on one scheduler, like
// BenchmarkFlowMemory, but records the heap in use (after a GC) after
// every flow, so growth shows as a trend rather than two samples. It
// reports MiB after the first and the last flow, the largest sample, and
// the least-squares slope over flows 2..n in KiB per flow (the first flow
// warms pools and caches). A supervisor that keeps nothing per finished
// flow has a slope near 0. The test worker's own per-job counters are
// dropped before each sample (see forget). With HYPHAE_BENCH_HEAPPROFILE=FILE it also
// writes a heap profile after the last flow, before the scheduler stops.
func BenchmarkFlowMemorySeries(b *testing.B) {
	flows := 10
	if n, err := strconv.Atoi(os.Getenv("HYPHAE_BENCH_FLOWS")); err == nil && n >= 3 {
		flows = n
	}
	e := newEnv(b, 4)
	s := e.sched(b, e.config())
	heaps := make([]float64, 0, flows)
	for i := 0; i < b.N; i++ {
		heaps = heaps[:0]
		for k := 0; k < flows; k++ {
			fl := e.create(b, s, fanOutFlow(1000))
			if err := s.StartFlow(e.ctx, ctxID, fl.ID); err != nil {
				b.Fatal(err)
			}
			e.wait(b, s, fl.ID)
			e.w.forget()
			heaps = append(heaps, float64(heapInUse())/(1<<20))
		}
	}
	b.StopTimer()
	if path := os.Getenv("HYPHAE_BENCH_HEAPPROFILE"); path != "" {
		writeHeapProfile(b, path)
	}
	high := 0.0
	for _, h := range heaps {
		high = max(high, h)
	}
	b.ReportMetric(heaps[0], "MiB-after-1st")
	b.ReportMetric(heaps[len(heaps)-1], "MiB-after-last")
	b.ReportMetric(high, "MiB-max")
	b.ReportMetric(slope(heaps[1:])*1024, "KiB/flow")
	for k, h := range heaps {
		b.Logf("heap after flow %d: %.2f MiB", k+1, h)
	}
}

// forget drops the test worker's per-job bookkeeping (executions per job
// name and per job key), which grows by one entry per job and is not part
// of the supervisor: memory benchmarks call it before sampling the heap so
// they measure the scheduler and the store, not the harness.
func (w *worker) forget() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.runs, w.byKey = map[string]int{}, map[string]int{}
	w.running, w.stopped = map[string]context.CancelFunc{}, map[string]bool{}
}

// writeHeapProfile writes the live heap (after a GC) to path while the
// scheduler is still running, to see what the growth is made of.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

// slope is the least-squares slope of ys against 0, 1, 2, ….
func slope(ys []float64) float64 {
	n := float64(len(ys))
	var sx, sy, sxx, sxy float64
	for i, y := range ys {
		x := float64(i)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	if d := n*sxx - sx*sx; d != 0 {
		return (n*sxy - sx*sy) / d
	}
	return 0
}
