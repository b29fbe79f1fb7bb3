package overlay

import (
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/network"
	rcmgr "github.com/libp2p/go-libp2p/p2p/host/resource-manager"
	"github.com/libp2p/go-libp2p/x/rate"
	ma "github.com/multiformats/go-multiaddr"
)

// privateNets are never limited per IP: loopback, RFC 1918, CGNAT (home
// labs behind carrier NAT, Tailscale), IPv6 ULA and link-local.
var privateNets = []string{
	"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10",
	"::1/128", "fc00::/7", "fe80::/10",
}

// perIPConns is how many connections one public IP may hold: several
// agents behind one NAT address must all get in.
const perIPConns = 256

// newResourceManager builds a resource manager sized for a few hundred
// agents, with per-IP limits raised and private networks allowlisted.
func newResourceManager() (network.ResourceManager, error) {
	scaling := rcmgr.DefaultLimits
	libp2p.SetDefaultServiceLimits(&scaling)
	partial := rcmgr.PartialLimitConfig{
		System: rcmgr.ResourceLimits{
			Conns: 2048, ConnsInbound: 1024, ConnsOutbound: 1024,
			Streams: 16384, StreamsInbound: 8192, StreamsOutbound: 8192,
		},
		Transient: rcmgr.ResourceLimits{
			Conns: 512, ConnsInbound: 256, ConnsOutbound: 256,
			Streams: 1024, StreamsInbound: 512, StreamsOutbound: 512,
		},
	}
	limits := partial.Build(scaling.AutoScale())
	v4, v6, allow, err := privateNetLimits()
	if err != nil {
		return nil, err
	}
	rm, err := rcmgr.NewResourceManager(rcmgr.NewFixedLimiter(limits),
		rcmgr.WithNetworkPrefixLimit(v4, v6),
		rcmgr.WithLimitPerSubnet(
			[]rcmgr.ConnLimitPerSubnet{{PrefixLength: 32, ConnCount: perIPConns}},
			[]rcmgr.ConnLimitPerSubnet{{PrefixLength: 56, ConnCount: perIPConns}, {PrefixLength: 48, ConnCount: 4 * perIPConns}}),
		rcmgr.WithAllowlistedMultiaddrs(allow),
		rcmgr.WithConnRateLimiters(connRateLimiter()),
	)
	if err != nil {
		return nil, fmt.Errorf("resource manager: %w", err)
	}
	return rm, nil
}

// privateNetLimits returns unlimited per-prefix connection limits and the
// allowlist multiaddrs for privateNets.
func privateNetLimits() (v4, v6 []rcmgr.NetworkPrefixLimit, allow []ma.Multiaddr, err error) {
	for _, s := range privateNets {
		p := netip.MustParsePrefix(s)
		l := rcmgr.NetworkPrefixLimit{Network: p, ConnCount: math.MaxInt}
		proto := "ip4"
		if p.Addr().Is6() {
			v6 = append(v6, l)
			proto = "ip6"
		} else {
			v4 = append(v4, l)
		}
		m, err := ma.NewMultiaddr(fmt.Sprintf("/%s/%s/ipcidr/%d", proto, p.Addr(), p.Bits()))
		if err != nil {
			return nil, nil, nil, fmt.Errorf("allowlist %s: %w", s, err)
		}
		allow = append(allow, m)
	}
	return v4, v6, allow, nil
}

// connRateLimiter rate limits new connections per public IP (agents behind
// one NAT address reconnecting together must pass); private nets unlimited.
func connRateLimiter() *rate.Limiter {
	var prefixes []rate.PrefixLimit
	for _, s := range privateNets {
		prefixes = append(prefixes, rate.PrefixLimit{Prefix: netip.MustParsePrefix(s)})
	}
	return &rate.Limiter{
		NetworkPrefixLimits: prefixes,
		SubnetRateLimiter: rate.SubnetLimiter{
			IPv4SubnetLimits: []rate.SubnetLimit{{PrefixLength: 32, Limit: rate.Limit{RPS: 5, Burst: 128}}},
			IPv6SubnetLimits: []rate.SubnetLimit{{PrefixLength: 56, Limit: rate.Limit{RPS: 5, Burst: 128}}},
			GracePeriod:      time.Minute,
		},
	}
}
