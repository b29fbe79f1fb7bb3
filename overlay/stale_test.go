package overlay

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
)

// A peer back after being marked down is reached on a fresh connection:
// the one that outlived its silence (half-dead after a network outage,
// holding frames until TCP's backed-off resend) is closed, with the direct
// stream on it, and frames go on a new one.
func TestPeerBackGetsFreshConnection(t *testing.T) {
	a := startAgent(t, testConfig())
	cfgB := testConfig()
	cfgB.Bootstrap = []string{a.addr()}
	b := startAgent(t, cfgB)
	waitFor(t, 15*time.Second, "a sees b up", func() bool { return a.seesUp(t, b.o.ID()) })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.o.Send(ctx, b.o.ID(), []byte("before")); err != nil {
		t.Fatal(err)
	}
	recv(t, b, 10*time.Second)
	old := a.o.host.Network().ConnsToPeer(b.o.ID())
	if len(old) == 0 {
		t.Fatal("a holds no connection to b")
	}

	// What the table loop does after b's silence; b's next record brings it back.
	a.o.table.sweep(time.Now().Add(time.Hour))
	waitFor(t, 15*time.Second, "b back on a fresh connection", func() bool {
		conns := a.o.host.Network().ConnsToPeer(b.o.ID())
		return a.o.Up(b.o.ID()) && len(conns) > 0 && !slices.ContainsFunc(conns, func(c network.Conn) bool {
			return slices.Contains(old, c)
		})
	})
	for _, c := range old {
		if !c.IsClosed() {
			t.Errorf("stale connection %s still open", c.ID())
		}
	}
	if err := a.o.Send(ctx, b.o.ID(), []byte("after")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, b, 10*time.Second); string(got.Data) != "after" {
		t.Fatalf("b got %q, want after", got.Data)
	}
}
