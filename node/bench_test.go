package node_test

import (
	"sort"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node"
)

// BenchmarkCrossAgentRoundTrip: submit a no-op job from agent A into
// agent B's context through A's API, and wait for the result at A, in one
// call (job.run with wait). Compare
// with overlay's BenchmarkRawPubsubRoundTrip from the same run.
func BenchmarkCrossAgentRoundTrip(b *testing.B) {
	bob := startAgent(b, agentOpts{})
	alice := startAgent(b, agentOpts{bootstrap: []string{bob.addr(b)}})
	bob.call(b, "context.create", map[string]any{"id": 2}, nil)
	bob.call(b, "context.grant", map[string]any{"id": 2, "actor": alice.peerID(), "role": "executor"}, nil)
	run := func() time.Duration {
		start := time.Now()
		var got node.JobView
		alice.call(b, "job.run", map[string]any{"to": bob.peerID(), "context": 2, "type": "noop", "script": "-", "wait": 60}, &got)
		if got.Status != "finished" {
			b.Fatalf("job %+v", got)
		}
		return time.Since(start)
	}
	run() // warm: connection, mesh, scripts loaded
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, run())
	}
	b.StopTimer()
	reportLatency(b, lat)
}

func reportLatency(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) == 0 {
		return
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	var total time.Duration
	for _, l := range lat {
		total += l
	}
	b.ReportMetric(float64(len(lat))/total.Seconds(), "jobs/s")
}
