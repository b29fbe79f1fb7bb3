package overlay

import (
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/p2p/host/autorelay"
	relay "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	ma "github.com/multiformats/go-multiaddr"
	manet "github.com/multiformats/go-multiaddr/net"
)

// natOptions returns the NAT traversal options: hole punching always, port
// mapping, static AutoRelay and the relay service as configured.
func natOptions(cfg Config) []libp2p.Option {
	opts := []libp2p.Option{libp2p.EnableHolePunching()}
	switch reachability(cfg) {
	case ReachPublic:
		opts = append(opts, libp2p.ForceReachabilityPublic())
	case ReachPrivate:
		opts = append(opts, libp2p.ForceReachabilityPrivate())
	}
	if cfg.NATPortMap {
		opts = append(opts, libp2p.NATPortMap())
	}
	if relays := addrInfos(cfg.Relays); len(relays) > 0 {
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

// reachability is the configured override; a relay service is public
// unless said otherwise (libp2p only runs the relay when it believes it is
// publicly reachable).
func reachability(cfg Config) string {
	if cfg.Reachability == "" && cfg.RelayService {
		return ReachPublic
	}
	return cfg.Reachability
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
	if reachability(cfg) == ReachPublic {
		return true
	}
	for _, s := range cfg.Listen {
		if m, err := ma.NewMultiaddr(s); err == nil && manet.IsPublicAddr(m) {
			return true
		}
	}
	return false
}
