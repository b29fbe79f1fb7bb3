package overlaybench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// RawSize is the raw baseline's message: 1 KiB.
const RawSize = 1 << 10

// queueSize is the overlay's gossipsub queue and subscription buffer
// size (overlay/pubsub.go), so that many messages in flight are not
// dropped by the baseline alone.
const queueSize = 1024

// The raw baseline: a gossipsub request/response between two bare hosts
// with default gossipsub, over two topics, one host echoing what the
// other publishes. The overlay's BenchmarkRawPubsubRoundTrip measures it
// on its own; the node benchmarks run it interleaved with theirs.

// RawNode is one of the baseline's bare hosts on 127.0.0.1, subscribed to
// topic sub and joined to topic pub. The host closes at tb's cleanup.
func RawNode(tb testing.TB, ctx context.Context, sub, pub string) (host.Host, *pubsub.Topic, *pubsub.Subscription) {
	tb.Helper()
	h, ps := Host(tb, ctx)
	in, out := Join(tb, ps, sub, pub)
	return h, out, in
}

// Host is a bare host on 127.0.0.1 (with opts, an identity say) and
// default gossipsub on it. The host closes at tb's cleanup.
func Host(tb testing.TB, ctx context.Context, opts ...libp2p.Option) (host.Host, *pubsub.PubSub) {
	tb.Helper()
	h, ps, err := NewHost(ctx, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	return h, ps
}

// NewHost is Host for a program without a testing.TB (a helper process):
// the caller closes the host.
func NewHost(ctx context.Context, opts ...libp2p.Option) (host.Host, *pubsub.PubSub, error) {
	h, err := libp2p.New(append(opts, libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))...)
	if err != nil {
		return nil, nil, err
	}
	// The overlay's queue sizes: gossipsub's defaults (32) drop messages
	// once more than that are in flight to one peer.
	ps, err := pubsub.NewGossipSub(ctx, h, pubsub.WithPeerOutboundQueueSize(queueSize), pubsub.WithValidateQueueSize(queueSize))
	if err != nil {
		_ = h.Close()
		return nil, nil, err
	}
	return h, ps, nil
}

// Join subscribes to topic sub and joins topic pub on ps.
func Join(tb testing.TB, ps *pubsub.PubSub, sub, pub string) (*pubsub.Subscription, *pubsub.Topic) {
	tb.Helper()
	s, tp, err := JoinTopics(ps, sub, pub)
	if err != nil {
		tb.Fatal(err)
	}
	return s, tp
}

// JoinTopics is Join for a program without a testing.TB.
func JoinTopics(ps *pubsub.PubSub, sub, pub string) (*pubsub.Subscription, *pubsub.Topic, error) {
	ts, err := ps.Join(sub)
	if err != nil {
		return nil, nil, err
	}
	s, err := ts.Subscribe(pubsub.WithBufferSize(queueSize))
	if err != nil {
		return nil, nil, err
	}
	tp, err := ps.Join(pub)
	if err != nil {
		s.Cancel()
		return nil, nil, err
	}
	return s, tp, nil
}

// Echo publishes every message from in on out, until ctx ends.
func Echo(ctx context.Context, in *pubsub.Subscription, out *pubsub.Topic) {
	for {
		m, err := in.Next(ctx)
		if err != nil {
			return
		}
		_ = out.Publish(ctx, slices.Clone(m.Data)) // a fresh slice: Publish keeps it
	}
}

// RoundTrip publishes RawSize bytes on out and waits for the echo on in.
func RoundTrip(ctx context.Context, out *pubsub.Topic, in *pubsub.Subscription) (time.Duration, error) {
	start := time.Now()
	if err := out.Publish(ctx, make([]byte, RawSize)); err != nil {
		return 0, err
	}
	if _, err := in.Next(ctx); err != nil {
		return 0, fmt.Errorf("raw echo: %w", err)
	}
	return time.Since(start), nil
}

// RawPair is the baseline's two hosts, connected, the second echoing.
type RawPair struct {
	out *pubsub.Topic
	in  *pubsub.Subscription
}

// NewRawPair starts the pair and waits (up to 10 s) until each host is a
// topic peer of the other; everything stops when ctx ends and at tb's
// cleanup.
func NewRawPair(tb testing.TB, ctx context.Context) *RawPair {
	tb.Helper()
	h1, out, in := RawNode(tb, ctx, "raw/a", "raw/b")
	h2, echoOut, echoIn := RawNode(tb, ctx, "raw/b", "raw/a")
	if err := ConnectTopic(ctx, h1, *host.InfoFromHost(h2), out); err != nil {
		tb.Fatal(err)
	}
	if err := ConnectTopic(ctx, h2, *host.InfoFromHost(h1), echoOut); err != nil {
		tb.Fatal(err)
	}
	go Echo(ctx, echoIn, echoOut)
	return &RawPair{out: out, in: in}
}

// ConnectTopic connects h to p and waits (up to 10 s) until p is a topic
// peer of out, so that what h publishes there reaches p.
func ConnectTopic(ctx context.Context, h host.Host, p peer.AddrInfo, out *pubsub.Topic) error {
	if err := h.Connect(ctx, p); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); !slices.Contains(out.ListPeers(), p.ID); {
		if time.Now().After(deadline) {
			return fmt.Errorf("raw: %s did not become a peer on topic %s in 10 s", p.ID, out.String())
		}
		time.Sleep(time.Millisecond)
	}
	return nil
}

// RoundTrip is one request/response of the pair.
func (p *RawPair) RoundTrip(ctx context.Context) (time.Duration, error) {
	return RoundTrip(ctx, p.out, p.in)
}
