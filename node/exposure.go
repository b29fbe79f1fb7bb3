package node

import "github.com/hyphae-run/hyphae/overlay"

// Exposure reports whether the overlay runs mDNS and UPnP / NAT-PMP port
// mapping (what runs, not what the config asked for); zero before Start.
func (n *Node) Exposure() overlay.Exposure {
	if n.overlay == nil {
		return overlay.Exposure{}
	}
	return n.overlay.Exposure()
}
