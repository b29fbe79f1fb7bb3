package overlay

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
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
// first such interface's IPv4 address, or the test is skipped. A swarm key
// of the test's own gives the agents an mDNS service name nobody else on
// the LAN uses, so other agents there cannot get in the way.
func TestMDNSDiscovery(t *testing.T) {
	ip := multicastIPv4()
	if ip == "" {
		t.Skip("no up, multicast-capable, non-loopback IPv4 interface: mDNS cannot work here")
	}
	if err := multicastLoops(ip); err != nil {
		t.Skipf("multicast sent on %s does not come back to this host, so mDNS cannot work here: %v", ip, err)
	}
	key := newSwarmKey(t)
	cfg := testConfig()
	cfg.Listen, cfg.MDNS, cfg.SwarmKey = []string{"/ip4/" + ip + "/tcp/0"}, true, key
	a, b := startAgent(t, cfg), startAgent(t, cfg)
	deadline := time.Now().Add(30 * time.Second)
	for !a.seesUp(t, b.o.ID()) || !b.seesUp(t, a.o.ID()) {
		if time.Now().After(deadline) {
			t.Fatalf("A and B did not find each other by mDNS in 30s; A's mdns %+v, B's %+v; connected: %v",
				a.o.MDNSStats(), b.o.MDNSStats(), a.o.Host().Network().Connectedness(b.o.ID()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Both dial on discovery; whichever connection wins, one side at least
	// recorded mdns (the other may have heard the presence first).
	if va, vb := a.row(t, b.o.ID()).FoundVia, b.row(t, a.o.ID()).FoundVia; va != FoundMDNS && vb != FoundMDNS {
		t.Errorf("found via %q and %q, want mdns on one side", va, vb)
	}
}

// A peer mDNS reports while it cannot be dialled is dialled again until
// it can be: the mDNS client reports each peer only once per record
// lifetime, so one failed dial must not lose it for an hour.
func TestMDNSFoundPeerRedialledAfterFailedDial(t *testing.T) {
	gate := &blockGater{}
	cfgA := testConfig()
	cfgA.Gater = gate
	a, b := startAgent(t, cfgA), startAgent(t, testConfig())
	gate.block(b.o.ID())
	n := &mdnsNotifee{o: a.o, sem: make(chan struct{}, maxParallelDial), dialing: map[peer.ID]bool{}}
	n.HandlePeerFound(peer.AddrInfo{ID: b.o.ID(), Addrs: b.o.Host().Addrs()})
	waitFor(t, 10*time.Second, "a failed dial", func() bool { return n.stats().Failed > 0 })
	gate.unblock(b.o.ID())
	waitFor(t, 20*time.Second, "A sees B after the retry", func() bool { return a.seesUp(t, b.o.ID()) })
	if via := a.row(t, b.o.ID()).FoundVia; via != FoundMDNS {
		t.Errorf("A found B via %q, want mdns", via)
	}
}

// Agents with different swarm keys announce under different mDNS
// service names (and never under the key itself); without a key the name
// is the public one. Every name is a valid DNS-SD service type: at most
// 15 characters between "_" and "._udp".
func TestMDNSServiceNamePerSwarmKey(t *testing.T) {
	k1, k2 := newSwarmKey(t), newSwarmKey(t)
	n0, n1, n2 := mdnsServiceName(nil), mdnsServiceName(k1), mdnsServiceName(k2)
	if n0 != MDNSService {
		t.Errorf("no key: %q, want %q", n0, MDNSService)
	}
	if n1 == n2 || n1 == n0 || n1 != mdnsServiceName(k1) {
		t.Errorf("names %q, %q, %q: want one per key, stable", n0, n1, n2)
	}
	for _, n := range []string{n0, n1, n2} {
		label := strings.TrimSuffix(strings.TrimPrefix(n, "_"), "._udp")
		if len(label) == 0 || len(label) > 15 || label+"._udp" != n[1:] {
			t.Errorf("%q is not a DNS-SD service type", n)
		}
	}
}

// multicastLoops sends one datagram to an administratively scoped group
// out of the interface holding ip and waits for it to come back to a
// socket of this host that joined the group there, which is what mDNS
// between two agents on one host needs.
func multicastLoops(ip string) error {
	ifi, err := interfaceOf(ip)
	if err != nil {
		return err
	}
	group := &net.UDPAddr{IP: net.IPv4(239, 255, 77, byte(os.Getpid())), Port: 20000 + os.Getpid()%20000}
	rc, err := net.ListenMulticastUDP("udp4", ifi, group)
	if err != nil {
		return err
	}
	defer rc.Close()
	sc, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.ParseIP(ip)})
	if err != nil {
		return err
	}
	defer sc.Close()
	want := []byte(fmt.Sprintf("hyphae multicast probe %d", time.Now().UnixNano()))
	buf := make([]byte, 128)
	for try := 0; try < 3; try++ {
		if _, err := sc.WriteToUDP(want, group); err != nil {
			return err
		}
		_ = rc.SetReadDeadline(time.Now().Add(time.Second))
		for {
			n, _, err := rc.ReadFromUDP(buf)
			if err != nil {
				break // deadline: send again
			}
			if string(buf[:n]) == string(want) {
				return nil
			}
		}
	}
	return fmt.Errorf("nothing came back from %v in 3 tries", group)
}

// interfaceOf returns the interface that holds ip.
func interfaceOf(ip string) (*net.Interface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for i := range ifs {
		addrs, _ := ifs[i].Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.String() == ip {
				return &ifs[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no interface holds %s", ip)
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
