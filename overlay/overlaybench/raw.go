package overlaybench

import (
	"context"
	"testing"

	"github.com/libp2p/go-libp2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
)

// RawNode is the raw baseline's half: a bare host on 127.0.0.1 with
// default gossipsub, subscribed to topic sub and joined to topic pub. The
// host closes at tb's cleanup.
func RawNode(tb testing.TB, ctx context.Context, sub, pub string) (host.Host, *pubsub.Topic, *pubsub.Subscription) {
	tb.Helper()
	h, err := libp2p.New(libp2p.ListenAddrStrings("/ip4/127.0.0.1/tcp/0"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = h.Close() })
	ps, err := pubsub.NewGossipSub(ctx, h)
	if err != nil {
		tb.Fatal(err)
	}
	ts, err := ps.Join(sub)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := ts.Subscribe()
	if err != nil {
		tb.Fatal(err)
	}
	tp, err := ps.Join(pub)
	if err != nil {
		tb.Fatal(err)
	}
	return h, tp, s
}
