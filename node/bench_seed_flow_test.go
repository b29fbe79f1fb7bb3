package node_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// BenchmarkSeedFlowChainEdge compares the per-edge overhead of a chain of
// noop jobs made the seed way (job.create with dependends, flow.create
// with jobs, flow.start {context_id, id}, which adopts the flow) with the
// same chain from a flow file (BenchmarkFlowChainEdge's agents=1), run
// one for one on one agent, timed from flow.start to the flow's end.
// Metrics: seed-µs/edge, yaml-µs/edge and seed/yaml (1 = no overhead of
// its own). The chain length is HYPHAE_BENCH_CHAIN (default 100).
func BenchmarkSeedFlowChainEdge(b *testing.B) {
	n := chainLen()
	a := startAgent(b, agentOpts{})
	a.call(b, "context.create", map[string]any{"id": flowBenchCtx}, nil)
	wait := func(id uint64, start time.Time) time.Duration {
		var fv wire.FlowView
		for !fv.Terminal() {
			a.call(b, "flow.wait", map[string]any{"context": flowBenchCtx, "id": id, "timeout": 60}, &fv)
		}
		d := time.Since(start)
		if fv.Status != "finished" || fv.Progress.Completed != n {
			b.Fatalf("flow %d: %s (%s), %d/%d completed", id, fv.Status, fv.Error, fv.Progress.Completed, n)
		}
		return d / time.Duration(n-1)
	}
	seed := func() time.Duration {
		ids := make([]uint64, n)
		for i := range ids {
			job := map[string]any{"script": "-", "script_type": "noop"}
			if i > 0 {
				job["dependends"] = []uint64{ids[i-1]}
			}
			var j wire.SeedJob
			a.call(b, "job.create", map[string]any{"context_id": flowBenchCtx, "job": job}, &j)
			ids[i] = j.ID
		}
		var f wire.SeedFlow
		a.call(b, "flow.create", map[string]any{"context_id": flowBenchCtx, "flow": map[string]any{"jobs": ids}}, &f)
		start := time.Now()
		a.call(b, "flow.start", map[string]any{"context_id": flowBenchCtx, "id": f.ID}, nil)
		return wait(f.ID, start)
	}
	file := chainFlowFile(n, "")
	yaml := func() time.Duration {
		var fv wire.FlowView
		a.call(b, "flow.create", map[string]any{"file_content": file, "context": flowBenchCtx}, &fv)
		start := time.Now()
		a.call(b, "flow.start", map[string]any{"context": flowBenchCtx, "id": fv.ID}, nil)
		return wait(fv.ID, start)
	}
	seed() // warm up: scripts loaded, the context's loops running
	yaml()
	var seeds, yamls []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seeds = append(seeds, seed())
		yamls = append(yamls, yaml())
	}
	b.StopTimer()
	s, y := medianDur(seeds), medianDur(yamls)
	b.ReportMetric(float64(s.Microseconds()), "seed-µs/edge")
	b.ReportMetric(float64(y.Microseconds()), "yaml-µs/edge")
	b.ReportMetric(float64(s)/float64(y), "seed/yaml")
}
