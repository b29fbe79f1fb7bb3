package overlay

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
)

// Test (3): bootstrap only, mDNS off. A knows only B, B knows only C; A
// ends up seeing C (through presence relayed by B, and the DHT rendezvous)
// and can Send to it.
func TestBootstrapChainDiscovery(t *testing.T) {
	cfgC := testConfig()
	cfgC.DHT = true
	c := startAgent(t, cfgC)
	cfgB := testConfig()
	cfgB.DHT, cfgB.Bootstrap = true, []string{c.addr()}
	b := startAgent(t, cfgB)
	cfgA := testConfig()
	cfgA.DHT, cfgA.Bootstrap = true, []string{b.addr()}
	a := startAgent(t, cfgA)

	waitFor(t, 20*time.Second, "A sees C", func() bool { return a.seesUp(t, c.o.ID()) })
	waitFor(t, 20*time.Second, "C sees A", func() bool { return c.seesUp(t, a.o.ID()) })
	if via := a.row(t, c.o.ID()).FoundVia; via != FoundPresence && via != FoundDHT {
		t.Errorf("A found C via %q, want presence or dht", via)
	}
	// Nothing but the DHT rendezvous dials C from A (presence only teaches
	// addresses), so a direct connection proves DHT discovery.
	waitFor(t, 30*time.Second, "A connects to C through the DHT rendezvous", func() bool {
		return a.o.Host().Network().Connectedness(c.o.ID()) == network.Connected
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.o.Send(ctx, c.o.ID(), []byte("hello C")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, c, 10*time.Second); string(got.Data) != "hello C" || got.From != a.o.ID() {
		t.Fatalf("got %+v", got)
	}
	if err := c.o.Send(ctx, a.o.ID(), []byte("hello A")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, a, 10*time.Second); string(got.Data) != "hello A" {
		t.Fatalf("got %+v", got)
	}
}

// mDNS with no bootstrap: only possible on an interface with multicast
// (Linux lo has none, FACTS.md pitfall 6), so the agents listen on the
// first such interface's IPv4 address, or the test is skipped.
func TestMDNSDiscovery(t *testing.T) {
	ip := multicastIPv4()
	if ip == "" {
		t.Skip("no up, multicast-capable, non-loopback IPv4 interface: mDNS cannot work here")
	}
	cfg := testConfig()
	cfg.Listen, cfg.MDNS = []string{"/ip4/" + ip + "/tcp/0"}, true
	a, b := startAgent(t, cfg), startAgent(t, cfg)
	waitFor(t, 20*time.Second, "A and B find each other by mDNS", func() bool {
		return a.seesUp(t, b.o.ID()) && b.seesUp(t, a.o.ID())
	})
	// Both dial on discovery; whichever connection wins, one side at least
	// recorded mdns (the other may have heard the presence first).
	if va, vb := a.row(t, b.o.ID()).FoundVia, b.row(t, a.o.ID()).FoundVia; va != FoundMDNS && vb != FoundMDNS {
		t.Errorf("found via %q and %q, want mdns on one side", va, vb)
	}
}

// multicastIPv4 returns the IPv4 address of an up, multicast, non-loopback
// interface, or "".
func multicastIPv4() string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagMulticast == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return ""
}
