package overlay

import (
	"context"
	"strings"
	"testing"
	"time"

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
