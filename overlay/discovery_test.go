package overlay

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testnet"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/pnet"
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

// mDNS with no bootstrap, between two agents in network namespaces of
// their own on a veth bridge (testnet.Lab): mDNS needs an interface with
// multicast (Linux lo has none, FACTS.md pitfall 6), and on the host's
// own interfaces it would announce the test's agents to the whole LAN.
// Each agent runs in a copy of this test binary in its namespace (the
// TestMDNSDiscovery child, mdnsChild) and reports when it sees the other
// up; both stay until both have. A swarm key of the test's own gives them
// an mDNS service name of their own.
func TestMDNSDiscovery(t *testing.T) {
	if os.Getenv(envMDNSChild) != "" {
		mdnsChild(t)
		return
	}
	lab := testnet.NewLab(t, 2)
	key := newSwarmKey(t)
	privs := []crypto.PrivKey{newKey(t), newKey(t)}
	ids := make([]peer.ID, 2)
	for i, p := range privs {
		ids[i], _ = peer.IDFromPrivateKey(p)
	}
	type seen struct {
		i   int
		via string
	}
	saw := make(chan seen, 2)
	exits := make(chan error, 2)
	var outs [2]lockedBuffer
	var stdins [2]io.WriteCloser
	for i := range 2 {
		raw, err := crypto.MarshalPrivateKey(privs[i])
		if err != nil {
			t.Fatal(err)
		}
		cmd := lab.Command(i, []string{"-test.run", "^TestMDNSDiscovery$", "-test.v", "-test.count", "1"},
			envMDNSChild+"="+strings.Join([]string{hex.EncodeToString(raw), ids[1-i].String(), lab.IP(i), hex.EncodeToString(key)}, ","))
		if stdins[i], err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = &outs[i]
		cmd.Stderr = &outs[i]
		outs[i].onLine = func(line string) {
			if via, ok := strings.CutPrefix(line, mdnsSawPrefix); ok {
				saw <- seen{i, via}
			}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			err := cmd.Wait()
			if err != nil {
				err = fmt.Errorf("agent %d (in %s): %w", i, lab.Host(i), err)
			}
			exits <- err
		}()
		t.Cleanup(func() { _ = cmd.Process.Kill() }) // after a failure; a no-op once it exited
	}
	logs := func() {
		for i := range 2 {
			t.Logf("agent %d in %s:\n%s", i, lab.Host(i), outs[i].String())
		}
	}
	vias := make([]string, 2)
	deadline := time.After(60 * time.Second)
	for seenBoth := 0; seenBoth < 2; {
		select {
		case s := <-saw:
			vias[s.i] = s.via
			seenBoth++
		case err := <-exits:
			logs()
			t.Fatalf("an agent ended before both saw the other up (saw: %q): %v", vias, err)
		case <-deadline:
			logs()
			t.Fatalf("the agents did not both see the other up by mDNS within 60s (saw: %q)", vias)
		}
	}
	for i := range 2 { // done: each child shuts its agent down and exits
		_ = stdins[i].Close()
	}
	for range 2 {
		if err := <-exits; err != nil {
			logs()
			t.Fatal(err)
		}
	}
	logs()
	// Both dial on discovery; whichever connection wins, one side at least
	// recorded mdns (the other may have heard the presence first).
	if vias[0] != FoundMDNS && vias[1] != FoundMDNS {
		t.Errorf("found via %q and %q, want mdns on one side", vias[0], vias[1])
	}
}

// envMDNSChild carries a TestMDNSDiscovery child's part: its key, the
// other's peer ID, its address, the swarm key (comma-separated, hex).
const envMDNSChild = "HYPHAE_TEST_MDNS_CHILD"

// mdnsSawPrefix starts the line a child prints once it sees the other up.
const mdnsSawPrefix = "mdns child: saw the other agent up, found via "

// mdnsChild is one agent of TestMDNSDiscovery, in its Lab namespace: it
// prints mdnsSawPrefix once it sees the other agent up, then stays until
// the parent closes its stdin.
func mdnsChild(t *testing.T) {
	if ns, ok := testnet.InLab(); !ok {
		t.Fatalf("%s set outside a Lab namespace (%q)", envMDNSChild, ns)
	}
	parts := strings.Split(os.Getenv(envMDNSChild), ",")
	if len(parts) != 4 {
		t.Fatalf("%s: %q", envMDNSChild, os.Getenv(envMDNSChild))
	}
	raw, err1 := hex.DecodeString(parts[0])
	other, err2 := peer.Decode(parts[1])
	psk, err3 := hex.DecodeString(parts[3])
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	priv, err := crypto.UnmarshalPrivateKey(raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	cfg.Listen, cfg.MDNS, cfg.SwarmKey = []string{"/ip4/" + parts[2] + "/tcp/0"}, true, pnet.PSK(psk)
	a := startAgentKey(t, cfg, priv)
	if !a.o.Exposure().MDNS {
		t.Fatal("mDNS configured and started, but the overlay does not report it running")
	}
	deadline := time.Now().Add(30 * time.Second)
	for !a.seesUp(t, other) {
		if time.Now().After(deadline) {
			t.Fatalf("did not find the other agent by mDNS in 30s; mdns %+v; connected: %v",
				a.o.MDNSStats(), a.o.Host().Network().Connectedness(other))
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Printf("%s%s\n", mdnsSawPrefix, a.row(t, other).FoundVia)
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the parent never said it was done")
	}
}

// lockedBuffer collects a child's output and hands onLine each line.
type lockedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	part   []byte
	onLine func(string)
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	b.part = append(b.part, p...)
	for {
		i := bytes.IndexByte(b.part, '\n')
		if i < 0 {
			break
		}
		if b.onLine != nil {
			b.onLine(string(b.part[:i]))
		}
		b.part = b.part[i+1:]
	}
	return len(p), nil
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
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
