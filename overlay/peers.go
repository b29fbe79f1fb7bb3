package overlay

import (
	"context"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/peerstore"
	ma "github.com/multiformats/go-multiaddr"
)

// storeTimeout bounds one peer-table write.
const storeTimeout = 5 * time.Second

// Peers is the peer table: every agent ever heard from, up or down.
func (o *Overlay) Peers(ctx context.Context) ([]*model.Peer, error) {
	ps, err := o.peers.ListPeers(ctx)
	if err != nil {
		return nil, fmt.Errorf("overlay.Peers: %w", err)
	}
	return ps, nil
}

// Up reports whether p announced itself within the last DownAfter
// presence intervals.
func (o *Overlay) Up(p peer.ID) bool { return o.table.up(p) }

// Connected reports whether this agent holds an open connection to p now.
// Unlike Up it changes at once: a peer that shuts down closes its
// connections, but its presence lasts DownAfter intervals.
func (o *Overlay) Connected(p peer.ID) bool {
	return o.host.Network().Connectedness(p) == network.Connected
}

// OnPeerChange registers f, called with a copy of a peer's row whenever it
// comes up, goes down, or announces different roles, types, capacity, load,
// version or addresses. Calls come one at a time from the overlay's table
// loop: f must not block for long.
func (o *Overlay) OnPeerChange(f func(*model.Peer)) { o.table.addHook(f) }

// loadTable restores the peer table of a previous run, marks every peer
// down until it announces itself again, and returns the rows (to redial).
func (o *Overlay) loadTable(ctx context.Context) []*model.Peer {
	rows, err := o.peers.ListPeers(ctx)
	if err != nil {
		o.log.Warn("overlay: loading peer table", "err", err)
		return nil
	}
	for _, r := range rows {
		if r.State == model.PeerUp {
			r.State = model.PeerDown
			o.save(ctx, *r)
		}
	}
	o.table.restore(rows)
	return rows
}

// tableLoop applies presence records and marks silent peers down. It is
// the only writer of the peer table, so OnPeerChange calls are serial. Its
// tick also sweeps the direct streams' and the conduct bookkeeping.
func (o *Overlay) tableLoop(records <-chan *presenceRecord) {
	tick := time.NewTicker(o.cfg.PresenceInterval)
	defer tick.Stop()
	silence := time.Duration(o.cfg.DownAfter) * o.cfg.PresenceInterval
	for {
		select {
		case <-o.ctx.Done():
			return
		case r := <-records:
			o.applyRecord(r)
		case now := <-tick.C:
			o.direct.sweep(now, o.Connected)
			o.conduct.sweep(now)
			o.forgetGone(now)
			for _, row := range o.table.sweep(now.Add(-silence)) {
				o.log.Info("overlay: peer down", "peer", row.PeerID)
				o.save(o.ctx, row)
				o.table.notify(row)
			}
		}
	}
}

// applyRecord stores a record's row, learns its addresses and notifies.
// A peer back after being marked down first loses the connections that
// outlived its silence (see dropStale), before the hooks resend to it.
//
// A peer newly up gets our own record at once and once more a gossipsub
// heartbeat later (answerNewcomer).
func (o *Overlay) applyRecord(r *presenceRecord) {
	downSince := o.table.downSince(r.peer)
	newcomer := !o.table.up(r.peer)
	row, changed := o.table.apply(r, time.Now())
	if newcomer && row.State == model.PeerUp {
		o.answerNewcomer()
	}
	if changed && !downSince.IsZero() && row.State == model.PeerUp {
		o.dropStale(r.peer, downSince)
	}
	o.learnAddrs(r.peer, r.Addrs)
	o.save(o.ctx, row)
	if changed {
		o.log.Debug("overlay: peer up", "peer", row.PeerID, "found_via", row.FoundVia)
		o.table.notify(row)
	}
}

// learnAddrs adds announced addresses to the peerstore for later dials.
func (o *Overlay) learnAddrs(p peer.ID, addrs []string) {
	var mas []ma.Multiaddr
	for _, s := range addrs {
		if m, err := ma.NewMultiaddr(s); err == nil {
			mas = append(mas, m)
		}
	}
	o.host.Peerstore().AddAddrs(p, mas, peerstore.RecentlyConnectedAddrTTL)
}

// save writes row to the peer table, logging failures.
func (o *Overlay) save(ctx context.Context, row model.Peer) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if err := o.peers.SavePeer(ctx, &row); err != nil && o.ctx.Err() == nil {
		o.log.Warn("overlay: saving peer", "peer", row.PeerID, "err", err)
	}
}
