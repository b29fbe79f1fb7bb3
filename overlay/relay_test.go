package overlay

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// AutoRelay and the relay service, in-process: R runs the relay service;
// A is declared behind a NAT with R as its static relay, so it reserves a
// slot at R. C, knowing A only by a circuit address through R, reaches A,
// and the bus works over the relayed connection (our circuits carry no
// limit, so gossipsub uses them; hole punching may later replace the
// circuit with a direct connection). AutoRelay announces circuit addresses
// only for relays with public addresses, so on loopback the test builds
// the circuit address itself.
func TestAutoRelayAndRelayService(t *testing.T) {
	cfgR := testConfig()
	cfgR.RelayService = true
	r := startAgent(t, cfgR)
	cfgA := testConfig()
	cfgA.Relays, cfgA.Reachability = []string{r.addr()}, ReachPrivate
	a := startAgent(t, cfgA)
	c := startAgent(t, testConfig())

	circuit, err := ma.NewMultiaddr(r.addr() + "/p2p-circuit")
	if err != nil {
		t.Fatal(err)
	}
	target := peer.AddrInfo{ID: a.o.ID(), Addrs: []ma.Multiaddr{circuit}}
	waitFor(t, 30*time.Second, "C reaches A through R (A holds a reservation)", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return c.o.Host().Connect(ctx, target) == nil
	})
	relayed := false
	for _, conn := range c.o.Host().Network().ConnsToPeer(a.o.ID()) {
		relayed = relayed || strings.Contains(conn.RemoteMultiaddr().String(), "/p2p-circuit")
	}
	if !relayed {
		t.Fatal("no relayed connection from C to A")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := c.o.Send(ctx, a.o.ID(), []byte("through R")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, a, 10*time.Second); string(got.Data) != "through R" || got.From != c.o.ID() {
		t.Fatalf("got %+v", got)
	}
}

// A direct connection to a peer reached through a relay takes its traffic
// over: ConnKind turns from relayed to direct, the next frame goes on a
// stream over the direct connection, and the relayed one is closed (as
// after hole punching).
func TestDirectConnectionReplacesRelayed(t *testing.T) {
	cfgR := testConfig()
	cfgR.RelayService = true
	r := startAgent(t, cfgR)
	cfgA := testConfig()
	cfgA.Relays, cfgA.Reachability = []string{r.addr()}, ReachPrivate
	a := startAgent(t, cfgA)
	c := startAgent(t, testConfig())
	circuit, err := ma.NewMultiaddr(r.addr() + "/p2p-circuit")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "C reaches A through R", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return c.o.Host().Connect(ctx, peer.AddrInfo{ID: a.o.ID(), Addrs: []ma.Multiaddr{circuit}}) == nil
	})
	if k := c.o.ConnKind(a.o.ID()); k != ConnRelayed {
		t.Fatalf("C's connection to A: %q, want %q", k, ConnRelayed)
	}
	send := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := c.o.Send(ctx, a.o.ID(), []byte(what)); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, a, 10*time.Second); string(got.Data) != what {
			t.Fatalf("got %q, want %q", got.Data, what)
		}
	}
	send("relayed")

	ctx := network.WithForceDirectDial(context.Background(), "test: as hole punching")
	direct := peer.AddrInfo{ID: a.o.ID(), Addrs: a.o.Host().Network().ListenAddresses()}
	if err := c.o.Host().Connect(ctx, direct); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "only a direct connection left between C and A", func() bool {
		for _, conn := range c.o.Host().Network().ConnsToPeer(a.o.ID()) {
			if isRelayed(conn) {
				return false
			}
		}
		return c.o.ConnKind(a.o.ID()) == ConnDirect && a.o.ConnKind(c.o.ID()) == ConnDirect
	})
	send("direct")
	e := c.o.direct.lock(a.o.ID())
	defer e.mu.Unlock()
	if e.s == nil || isRelayed(e.s.Conn()) {
		t.Fatal("C's stream to A is not on the direct connection")
	}
}
