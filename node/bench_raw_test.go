package node_test

import (
	"context"
	"slices"
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/overlay/overlaybench"
)

// rawPubsub is the raw baseline of the cross-agent benchmarks run inside
// them: two bare hosts with default gossipsub (as overlay's
// BenchmarkRawPubsubRoundTrip), one echoing 1 KiB messages back to the
// other over two topics. Interleaved one for one with the measured round
// trips, it sees the same machine: load spikes, the agents' background work
// and the benchmark process's garbage collector hit both alike.
type rawPubsub struct {
	out *pubsub.Topic
	in  *pubsub.Subscription
}

// newRawPubsub starts the pair and its echo; both stop at cleanup.
func newRawPubsub(b *testing.B) *rawPubsub {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	h1, out, in := overlaybench.RawNode(b, ctx, "raw/a", "raw/b")
	h2, echoOut, echoIn := overlaybench.RawNode(b, ctx, "raw/b", "raw/a")
	if err := h1.Connect(ctx, peer.AddrInfo{ID: h2.ID(), Addrs: h2.Addrs()}); err != nil {
		b.Fatal(err)
	}
	eventually(b, 10*time.Second, "the raw pair to see each other", func() bool {
		return slices.Contains(out.ListPeers(), h2.ID()) && slices.Contains(echoOut.ListPeers(), h1.ID())
	})
	go func() {
		for {
			m, err := echoIn.Next(ctx)
			if err != nil {
				return
			}
			_ = echoOut.Publish(ctx, slices.Clone(m.Data))
		}
	}()
	r := &rawPubsub{out: out, in: in}
	r.roundTrip(b) // warm
	return r
}

// roundTrip publishes 1 KiB and waits for its echo.
func (r *rawPubsub) roundTrip(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), floorTimeout)
	defer cancel()
	start := time.Now()
	if err := r.out.Publish(ctx, make([]byte, floorRawSize)); err != nil {
		b.Fatal(err)
	}
	if _, err := r.in.Next(ctx); err != nil {
		b.Fatalf("raw echo: %v", err)
	}
	return time.Since(start)
}
