package overlay

import (
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
)

// Bootstrap redial backoff.
const (
	bootstrapBackoffMin = 500 * time.Millisecond
	bootstrapBackoffMax = time.Minute
	protectBootstrap    = "hyphae-bootstrap"
)

// bootstrapLoop keeps a connection to one bootstrap peer for the lifetime
// of the overlay: it re-dials with exponential backoff whenever it is down.
func (o *Overlay) bootstrapLoop(pi peer.AddrInfo) {
	if pi.ID == o.id {
		return
	}
	o.cm.Protect(pi.ID, protectBootstrap)
	o.host.Peerstore().AddAddrs(pi.ID, pi.Addrs, peerstore.PermanentAddrTTL)
	backoff := bootstrapBackoffMin
	for {
		wait := o.cfg.PresenceInterval
		if !o.Connected(pi.ID) {
			if err := o.connect(pi, FoundBootstrap); err != nil {
				o.log.Debug("overlay: bootstrap dial failed", "peer", pi.ID, "retry_in", backoff, "err", err)
				wait = backoff
				backoff = min(2*backoff, bootstrapBackoffMax)
			} else {
				o.log.Info("overlay: connected to bootstrap peer", "peer", pi.ID)
				backoff = bootstrapBackoffMin
			}
		}
		if !o.sleep(wait) {
			return
		}
	}
}
