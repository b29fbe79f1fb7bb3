package overlay

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	ma "github.com/multiformats/go-multiaddr"
)

func mustMA(t *testing.T, s string) ma.Multiaddr {
	t.Helper()
	m, err := ma.NewMultiaddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A private address of another site (not on this machine's networks) is
// not dialled: the dial would wait for a timeout. Public, loopback,
// on-network and configured addresses are.
func TestDialGateSkipsOtherSitesPrivateAddrs(t *testing.T) {
	_, lan, _ := net.ParseCIDR("192.168.1.0/24")
	_, vpn, _ := net.ParseCIDR("10.8.0.0/16")
	cfg := Config{Bootstrap: []string{"/ip4/10.1.2.3/tcp/4001/p2p/12D3KooWRdL1mi3fmvpEAHqAvDxgFvpG1g8uucEm1F9bHPuHRktP"}}
	g := newDialGater(cfg)
	g.read = func() []*net.IPNet { return []*net.IPNet{lan, vpn} }
	for addr, want := range map[string]bool{
		"/ip4/192.168.2.2/tcp/4001":           false, // the other site's LAN
		"/ip4/172.16.0.9/udp/4001/quic-v1":    false,
		"/ip4/100.64.1.1/tcp/4001":            false, // carrier-grade NAT
		"/ip4/192.168.1.7/tcp/4001":           true,  // our LAN
		"/ip4/10.8.3.4/tcp/4001":              true,  // routed (a VPN)
		"/ip4/10.1.2.3/tcp/4001":              true,  // a configured bootstrap peer
		"/ip4/127.0.0.1/tcp/4001":             true,
		"/ip4/11.1.0.10/tcp/4001":             true, // public
		"/dns4/example.com/tcp/4001":          true,
		"/ip6/fd00::1/tcp/4001":               false, // ULA elsewhere
		"/ip4/11.1.0.10/tcp/4001/p2p-circuit": true,
	} {
		if got := g.InterceptAddrDial("", mustMA(t, addr)); got != want {
			t.Errorf("dial %s: %v, want %v", addr, got, want)
		}
	}
}

// The routes other than the default one count as this machine's networks.
func TestRoutedNets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "route")
	table := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" + // default via 192.168.1.1
		"eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" + // 192.168.1.0/24
		"wg0\t0000080A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n" + // 10.8.0.0/16
		"eth0\t0000100A\t00000000\t0201\t0\t0\t0\t0000FFFF\t0\t0\t0\n" // 10.16.0.0/16, reject
	if err := os.WriteFile(path, []byte(table), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range routedNets(path) {
		got = append(got, n.String())
	}
	if len(got) != 2 || got[0] != "192.168.1.0/24" || got[1] != "10.8.0.0/16" {
		t.Fatalf("routed nets %v, want [192.168.1.0/24 10.8.0.0/16]", got)
	}
}

// An agent without a public address given a rendezvous at a public one
// knows it is behind a NAT (so it reserves a relay slot at once); on a LAN
// or one machine AutoNAT decides; a relay service is public.
func TestReachabilityGuess(t *testing.T) {
	const id = "/p2p/12D3KooWRdL1mi3fmvpEAHqAvDxgFvpG1g8uucEm1F9bHPuHRktP"
	home := []ma.Multiaddr{mustMA(t, "/ip4/127.0.0.1"), mustMA(t, "/ip4/192.168.1.2")}
	public := append(home, mustMA(t, "/ip4/11.1.0.10"))
	for _, c := range []struct {
		name   string
		cfg    Config
		ifaces []ma.Multiaddr
		want   string
	}{
		{"home, public bootstrap", Config{Bootstrap: []string{"/ip4/11.1.0.10/tcp/4001" + id}}, home, ReachPrivate},
		{"home, public relay", Config{Relays: []string{"/ip4/11.1.0.10/tcp/4001" + id}}, home, ReachPrivate},
		{"home, LAN bootstrap", Config{Bootstrap: []string{"/ip4/192.168.1.9/tcp/4001" + id}}, home, ""},
		{"public machine", Config{Bootstrap: []string{"/ip4/11.1.0.11/tcp/4001" + id}}, public, ""},
		{"home with public IPv6, IPv4 rendezvous", Config{Bootstrap: []string{"/ip4/11.1.0.10/tcp/4001" + id}}, append(home, mustMA(t, "/ip6/2a01:4f8::2")), ReachPrivate},
		{"public IPv6 machine, IPv6 rendezvous", Config{Bootstrap: []string{"/ip6/2a01:4f8::9/tcp/4001" + id}}, append(home, mustMA(t, "/ip6/2a01:4f8::2")), ""},
		{"listens on a public address", Config{Listen: []string{"/ip4/11.1.0.3/tcp/4001"}, Bootstrap: []string{"/ip4/11.1.0.10/tcp/4001" + id}}, home, ""},
		{"relay service", Config{RelayService: true}, home, ReachPublic},
		{"said private", Config{Reachability: ReachPrivate}, public, ReachPrivate},
		{"said public", Config{Reachability: ReachPublic, Bootstrap: []string{"/ip4/11.1.0.10/tcp/4001" + id}}, home, ReachPublic},
	} {
		if got := reachability(c.cfg.withDefaults(), c.ifaces); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
