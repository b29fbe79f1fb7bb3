package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// rawPubsub is the raw baseline run inside the cross-agent benchmarks
// (overlaybench.RawPair: two bare hosts with default gossipsub, as
// overlay's BenchmarkRawPubsubRoundTrip). Interleaved one for one with the
// measured round trips, it sees the same machine: load spikes, the agents'
// background work and the benchmark process's garbage collector hit both
// alike.
type rawPubsub struct{ pair *overlaybench.RawPair }

// newRawPubsub starts the pair and its echo; both stop at cleanup.
func newRawPubsub(b *testing.B) *rawPubsub {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	r := &rawPubsub{overlaybench.NewRawPair(b, ctx)}
	r.roundTrip(b) // warm
	return r
}

// roundTrip is one raw request/response.
func (r *rawPubsub) roundTrip(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), floorTimeout)
	defer cancel()
	d, err := r.pair.RoundTrip(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
