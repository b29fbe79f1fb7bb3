package node_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// BenchmarkJobRunIdempotencyKey: job.run of a noop job with wait and a new
// idempotency key each time (ours: the key's claim, and the runner's check
// of it at the claim) beside the same without a key (raw), one for one on
// one agent: ratio-p50 is what a key costs a submission. dup-p50 is a
// repeat of a used key (answered from the record, nothing runs).
func BenchmarkJobRunIdempotencyKey(b *testing.B) {
	a := startAgent(b, agentOpts{unixRedis: true})
	a.call(b, "context.create", map[string]any{"id": 1}, nil)
	n := 0
	run := func(key bool) func() time.Duration {
		return func() time.Duration {
			p := map[string]any{"context": 1, "type": "noop", "script": "-", "wait": 60}
			if key {
				n++
				p["idempotency_key"] = "bench-" + strconv.Itoa(n)
			}
			start := time.Now()
			var j wire.JobView
			a.call(b, "job.run", p, &j)
			if j.Status != "finished" || j.Deduplicated {
				b.Fatalf("job %+v", j)
			}
			return time.Since(start)
		}
	}
	overlaybench.Interleaved(b, 20, run(true), run(false))
	b.StopTimer()
	lat := make([]time.Duration, 200)
	for i := range lat {
		start := time.Now()
		var j wire.JobView
		a.call(b, "job.run", map[string]any{"context": 1, "type": "noop", "script": "-", "wait": 60,
			"idempotency_key": "bench-1"}, &j)
		lat[i] = time.Since(start)
		if !j.Deduplicated {
			b.Fatalf("repeat of bench-1 not deduplicated: %+v", j)
		}
	}
	p50, _, _ := overlaybench.Percentiles(lat)
	b.ReportMetric(float64(p50.Microseconds()), "dup-p50-µs")
}
