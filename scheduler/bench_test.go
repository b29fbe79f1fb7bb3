package scheduler_test

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// chainFlow is n no-op jobs, each needing the one before.
func chainFlow(n int) string {
	var b strings.Builder
	b.WriteString("jobs:\n  j000: {type: noop, script: x}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  j%03d: {type: noop, script: x, needs: j%03d}\n", i, i-1)
	}
	return b.String()
}

// fanOutFlow is one root and n-1 no-op jobs that need it.
func fanOutFlow(n int) string {
	var b strings.Builder
	b.WriteString("jobs:\n  root: {type: noop, script: x}\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "  j%04d: {type: noop, script: x, needs: root}\n", i)
	}
	return b.String()
}

// roundTrip is one plain job's dispatch round trip: EnqueueJob → the
// worker completes it → WaitJob sees the end.
func roundTrip(b *testing.B, e *env) time.Duration {
	j := &model.RunnerJob{CallerID: 1, ContextID: ctxID, ScriptType: "noop", Script: "x"}
	start := time.Now()
	if err := e.st.Jobs.EnqueueJob(e.ctx, j); err != nil {
		b.Fatal(err)
	}
	if _, err := e.st.Jobs.WaitJob(e.ctx, ctxID, store.JobKey(1, j.ID)); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

func median(ds []time.Duration) time.Duration {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

// BenchmarkChainEdge: per-edge scheduling overhead of a 100-job chain of
// no-op jobs — (makespan − time inside jobs) / 99 — beside a single job's
// dispatch round trip measured in the same run.
func BenchmarkChainEdge(b *testing.B) {
	e := newEnv(b, 1)
	s := e.sched(b, e.config())
	var rts, edges []time.Duration
	for i := 0; i < b.N; i++ {
		for k := 0; k < 20; k++ {
			rts = append(rts, roundTrip(b, e))
		}
		fl := e.create(b, s, chainFlow(100))
		busy := e.w.busy()
		start := time.Now()
		if err := s.StartFlow(e.ctx, ctxID, fl.ID); err != nil {
			b.Fatal(err)
		}
		st := e.wait(b, s, fl.ID)
		total := time.Since(start) - (e.w.busy() - busy)
		if st.Status != model.FlowFinished {
			b.Fatalf("flow %s: %s", st.Status, st.Error)
		}
		edges = append(edges, total/99)
	}
	edge, rt := median(edges), median(rts)
	b.ReportMetric(float64(edge.Microseconds()), "µs/edge")
	b.ReportMetric(float64(rt.Microseconds()), "µs/roundtrip")
	b.ReportMetric(float64(edge)/float64(rt), "edge/roundtrip")
}

// BenchmarkFanOut1000: makespan of one root and 999 no-op jobs needing it,
// four workers.
func BenchmarkFanOut1000(b *testing.B) {
	e := newEnv(b, 4)
	s := e.sched(b, e.config())
	var spans []time.Duration
	for i := 0; i < b.N; i++ {
		fl := e.create(b, s, fanOutFlow(1000))
		start := time.Now()
		if err := s.StartFlow(e.ctx, ctxID, fl.ID); err != nil {
			b.Fatal(err)
		}
		if st := e.wait(b, s, fl.ID); st.Status != model.FlowFinished {
			b.Fatalf("flow %s: %s", st.Status, st.Error)
		}
		spans = append(spans, time.Since(start))
	}
	b.ReportMetric(float64(median(spans).Milliseconds()), "ms/makespan")
}

// BenchmarkFlowMemory runs 10 flows of 1,000 jobs one after another and
// reports the heap after the first and after the last.
func BenchmarkFlowMemory(b *testing.B) {
	e := newEnv(b, 4)
	s := e.sched(b, e.config())
	var first, last uint64
	for i := 0; i < b.N; i++ {
		for k := 0; k < 10; k++ {
			fl := e.create(b, s, fanOutFlow(1000))
			if err := s.StartFlow(e.ctx, ctxID, fl.ID); err != nil {
				b.Fatal(err)
			}
			e.wait(b, s, fl.ID)
			e.w.forget() // the test worker's per-job counters are not the supervisor's memory
			heap := heapInUse()
			if k == 0 {
				first = heap
			}
			last = heap
		}
	}
	b.ReportMetric(float64(first)/(1<<20), "MiB-after-1st")
	b.ReportMetric(float64(last)/(1<<20), "MiB-after-10th")
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
