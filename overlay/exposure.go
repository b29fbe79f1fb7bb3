package overlay

import (
	"sync/atomic"

	"github.com/libp2p/go-libp2p/config"
	"github.com/libp2p/go-libp2p/core/network"
	basichost "github.com/libp2p/go-libp2p/p2p/host/basic"
)

// Exposure says which of the overlay's features reach beyond its own
// connections, onto the networks around the machine: what runs, not what
// the configuration asked for.
type Exposure struct {
	// MDNS: an mDNS service was started, which sends multicast queries and
	// announcements on every interface of the machine (Start starts it).
	MDNS bool
	// PortMap: libp2p built a UPnP / NAT-PMP port mapper, which looks for
	// the LAN's gateway and asks it to open the listen ports (New builds
	// it).
	PortMap bool
}

// Exposure reports whether mDNS and port mapping were started; both stay
// reported after Shutdown. The test suite fails any agent it starts on
// the host with either on (testkit/testnet).
func (o *Overlay) Exposure() Exposure {
	o.mu.Lock()
	mdns := o.mdns != nil
	o.mu.Unlock()
	return Exposure{MDNS: mdns, PortMap: o.portMap.Load()}
}

// portMapper is libp2p's port mapper constructor (what libp2p.NATPortMap
// installs), setting built when libp2p calls it.
func portMapper(built *atomic.Bool) config.NATManagerC {
	return func(n network.Network) basichost.NATManager {
		built.Store(true)
		return basichost.NewNATManager(n)
	}
}
