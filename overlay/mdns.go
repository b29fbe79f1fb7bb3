package overlay

import (
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
)

// MDNSService is the DNS-SD service name agents announce on the LAN.
const MDNSService = "_hyphae._udp"

// mdnsNotifee connects to peers found on the LAN.
type mdnsNotifee struct {
	o   *Overlay
	sem chan struct{}
}

// HandlePeerFound implements mdns.Notifee.
func (n mdnsNotifee) HandlePeerFound(pi peer.AddrInfo) {
	if pi.ID == n.o.id {
		return
	}
	n.o.connectAsync(n.sem, pi, FoundMDNS)
}

// startMDNS announces this agent on the LAN and connects to others.
func (o *Overlay) startMDNS() error {
	svc := mdns.NewMdnsService(o.host, MDNSService, mdnsNotifee{o: o, sem: make(chan struct{}, maxParallelDial)})
	if err := svc.Start(); err != nil {
		return fmt.Errorf("mdns: %w", err)
	}
	o.mu.Lock()
	closed := o.closed
	if !closed {
		o.stopMDNS = svc.Close
	}
	o.mu.Unlock()
	if closed {
		_ = svc.Close()
	}
	return nil
}
