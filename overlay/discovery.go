package overlay

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"
)

// Discovery tuning.
const (
	connectTimeout  = 10 * time.Second
	maxParallelDial = 8
)

// startDiscovery starts every configured way of finding peers: bootstrap
// peers, peers remembered in the table, mDNS and the DHT.
func (o *Overlay) startDiscovery(stored []*model.Peer) error {
	for _, pi := range addrInfos(o.cfg.Bootstrap) {
		o.spawn(func() { o.bootstrapLoop(pi) })
	}
	o.redialStored(stored)
	if o.cfg.MDNS {
		if err := o.startMDNS(); err != nil {
			return err
		}
	}
	if o.kad != nil {
		o.startDHT()
	}
	return nil
}

// connect dials pi and, on success, records how it was found.
func (o *Overlay) connect(pi peer.AddrInfo, via string) error {
	if pi.ID == o.id {
		return nil
	}
	ctx, cancel := context.WithTimeout(o.ctx, connectTimeout)
	defer cancel()
	o.table.dialing(pi.ID, via)
	err := o.host.Connect(ctx, pi)
	o.table.dialed(pi.ID, via, err == nil)
	return err
}

// connectAsync dials pi in the background, at most maxParallelDial at once.
func (o *Overlay) connectAsync(sem chan struct{}, pi peer.AddrInfo, via string) {
	o.spawn(func() {
		if err := o.connectBounded(sem, pi, via); err != nil {
			o.log.Debug("overlay: dial failed", "peer", pi.ID, "via", via, "err", err)
		}
	})
}

// connectBounded takes a dial slot of sem (or gives up at shutdown) and
// dials pi once.
func (o *Overlay) connectBounded(sem chan struct{}, pi peer.AddrInfo, via string) error {
	select {
	case sem <- struct{}{}:
	case <-o.ctx.Done():
		return o.ctx.Err()
	}
	defer func() { <-sem }()
	return o.connect(pi, via)
}

// redialStored dials the peers remembered from earlier runs, so a
// restarted agent rejoins without mDNS or bootstrap peers.
func (o *Overlay) redialStored(rows []*model.Peer) {
	sem := make(chan struct{}, maxParallelDial)
	for _, r := range rows {
		id, err := peer.Decode(r.PeerID)
		if err != nil || id == o.id || len(r.Addrs) == 0 {
			continue
		}
		pi := peer.AddrInfo{ID: id}
		for _, s := range r.Addrs {
			if m, err := ma.NewMultiaddr(s); err == nil {
				pi.Addrs = append(pi.Addrs, m)
			}
		}
		o.host.Peerstore().AddAddrs(id, pi.Addrs, peerstore.RecentlyConnectedAddrTTL)
		o.connectAsync(sem, pi, FoundStore)
	}
}
