package overlay

import (
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// How this agent is connected to a peer (ConnKind).
const (
	ConnDirect  = "direct"  // at least one connection not through a relay
	ConnRelayed = "relayed" // only connections through a relay
)

// relayCloseGrace is how long a relayed connection to a peer is kept after
// a direct one opened: the hole-punching exchange that made the direct one
// runs on it and ends just after.
const relayCloseGrace = 2 * time.Second

// ConnKind says how this agent is connected to p now: ConnDirect,
// ConnRelayed, or "" when it is not connected.
func (o *Overlay) ConnKind(p peer.ID) string {
	kind := ""
	for _, c := range o.host.Network().ConnsToPeer(p) {
		if !isRelayed(c) {
			return ConnDirect
		}
		kind = ConnRelayed
	}
	return kind
}

// isRelayed reports whether c goes through a circuit relay.
func isRelayed(c network.Conn) bool {
	_, err := c.RemoteMultiaddr().ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}

// directOpened is called (by the swarm, synchronously) for every new
// connection. A direct connection to a peer that this agent reached
// through a relay (hole punching succeeded, or the peer dialled in) takes
// its traffic over: the direct stream on the relayed connection is
// dropped, so the next frame opens one on the direct connection (libp2p
// prefers it), and the relayed connections are closed after
// relayCloseGrace, so gossipsub moves too and the relay is freed.
func (o *Overlay) directOpened(_ network.Network, c network.Conn) {
	if isRelayed(c) {
		return
	}
	p := c.RemotePeer()
	o.spawn(func() {
		relayed := 0
		for _, rc := range o.host.Network().ConnsToPeer(p) {
			if isRelayed(rc) {
				o.direct.forget(p, rc)
				relayed++
			}
		}
		if relayed == 0 {
			return
		}
		o.log.Info("overlay: direct connection replaces relayed", "peer", p, "addr", c.RemoteMultiaddr())
		if !o.sleep(relayCloseGrace) || o.ConnKind(p) != ConnDirect {
			return
		}
		for _, rc := range o.host.Network().ConnsToPeer(p) {
			if isRelayed(rc) {
				_ = rc.Close()
			}
		}
	})
}
