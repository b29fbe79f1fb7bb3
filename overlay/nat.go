package overlay

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/p2p/host/autorelay"
	relay "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// natOptions returns the NAT traversal options: hole punching always, port
// mapping, static AutoRelay and the relay service as configured. portMap
// is set when libp2p builds the port mapper.
func natOptions(cfg Config, portMap *atomic.Bool) []libp2p.Option {
	opts := []libp2p.Option{libp2p.EnableHolePunching()}
	switch reachability(cfg, interfaceAddrs()) {
	case ReachPublic:
		opts = append(opts, libp2p.ForceReachabilityPublic())
	case ReachPrivate:
		opts = append(opts, libp2p.ForceReachabilityPrivate())
	}
	if cfg.NATPortMap {
		opts = append(opts, libp2p.NATManager(portMapper(portMap))) // libp2p.NATPortMap, noted
	}
	if relays := addrInfos(relayCandidates(cfg)); len(relays) > 0 {
		opts = append(opts, libp2p.EnableAutoRelayWithStaticRelays(relays,
			autorelay.WithBootDelay(0), autorelay.WithBackoff(30*time.Second)))
	}
	if cfg.RelayService {
		opts = append(opts, libp2p.EnableRelayService(relay.WithResources(relayResources()),
			relay.WithReservationAddressFilter(func(ma.Multiaddr) bool { return true })),
			libp2p.EnableNATService())
	}
	return opts
}

// reachability is the configured override, else what the configuration
// and this machine's addresses tell. A relay service is public unless said
// otherwise (libp2p only runs the relay when it believes it is publicly
// reachable). An agent with no public address on any interface that is
// given a relay or bootstrap peer at a public address is behind a NAT:
// private, so it reserves a slot at its relays at once instead of waiting
// for AutoNAT. Otherwise (a LAN or one machine) AutoNAT decides.
func reachability(cfg Config, ifaces []ma.Multiaddr) string {
	switch {
	case cfg.Reachability == ReachPublic || cfg.Reachability == ReachPrivate:
		return cfg.Reachability
	case cfg.RelayService:
		return ReachPublic
	case behindNAT(cfg, ifaces):
		return ReachPrivate
	}
	return ""
}

// behindNAT: a relay candidate has a public address of an IP family (v4,
// v6) of which this machine has none on its interfaces and none to listen
// on. A home machine with a public IPv6 address behind an IPv4 NAT is
// behind a NAT for a rendezvous reached over IPv4 (and home routers
// usually keep unasked IPv6 traffic out too).
func behindNAT(cfg Config, ifaces []ma.Multiaddr) bool {
	var listen []ma.Multiaddr
	for _, s := range cfg.Listen {
		if m, err := ma.NewMultiaddr(s); err == nil {
			listen = append(listen, m)
		}
	}
	own := append(slices.Clone(ifaces), listen...)
	for _, pi := range addrInfos(relayCandidates(cfg)) {
		for _, a := range pi.Addrs {
			if manet.IsPublicAddr(a) && !slices.ContainsFunc(own, publicOfFamily(a)) {
				return true
			}
		}
	}
	return false
}

// publicOfFamily matches public addresses of a's IP family.
func publicOfFamily(a ma.Multiaddr) func(ma.Multiaddr) bool {
	v6 := isIP6(a)
	return func(m ma.Multiaddr) bool { return manet.IsPublicAddr(m) && isIP6(m) == v6 }
}

func isIP6(a ma.Multiaddr) bool {
	_, err := a.ValueForProtocol(ma.P_IP6)
	return err == nil
}

// relayCandidates are the configured relays, or else the bootstrap peers:
// a home lab's public rendezvous agent usually runs the relay service too
// (a bootstrap peer without one only refuses the reservation).
func relayCandidates(cfg Config) []string {
	if len(cfg.Relays) > 0 {
		return cfg.Relays
	}
	return cfg.Bootstrap
}

// interfaceAddrs are this machine's interface addresses (none on error).
func interfaceAddrs() []ma.Multiaddr {
	addrs, _ := manet.InterfaceMultiaddrs()
	return addrs
}

// relayResources raises the relay service limits for job traffic. The
// relay tells clients all its addresses, not only public ones, so a relay
// on a LAN or a VPN serves too. Circuits
// carry no per-connection data or duration limit: a relayed connection
// without a limit is not "limited", so gossipsub runs over it while hole
// punching tries to replace it with a direct one.
func relayResources() relay.Resources {
	r := relay.DefaultResources()
	r.Limit = nil
	r.ReservationTTL = time.Hour
	r.MaxReservations = 1024
	r.MaxCircuits = 64
	r.BufferSize = 32 << 10
	r.MaxReservationsPerIP = 64
	r.MaxReservationsPerASN = 256
	return r
}

// publiclyReachable reports whether the configuration says this node has a
// public address: it runs a relay service, is declared public or listens on
// a public IP.
func publiclyReachable(cfg Config) bool {
	return cfg.Reachability == ReachPublic || cfg.Reachability == "" && cfg.RelayService || publicListen(cfg)
}

// publicListen reports whether a listen address is a public IP.
func publicListen(cfg Config) bool {
	for _, s := range cfg.Listen {
		if m, err := ma.NewMultiaddr(s); err == nil && manet.IsPublicAddr(m) {
			return true
		}
	}
	return false
}
