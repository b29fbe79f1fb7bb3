package overlay

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// DefaultForgetAfter is how long a peer may stay down before the table
// forgets it (Config.ForgetAfter).
const DefaultForgetAfter = 24 * time.Hour

// peerForgetter is a PeerTable that can also delete a row; the store's
// Registry is one. A table without it keeps forgotten peers' rows.
type peerForgetter interface {
	DeletePeer(ctx context.Context, peerID string) error
}

// forget drops the peers that are down and were last seen before cutoff
// (by their stored LastSeen, so that rows restored from an earlier run
// count too), and returns their IDs. A peer never seen (LastSeen 0: only
// dialled) is kept.
func (t *liveTable) forget(cutoff time.Time) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var gone []string
	for id, e := range t.rows {
		if e.row.State == model.PeerUp || e.row.LastSeen <= 0 || !time.Unix(e.row.LastSeen, 0).Before(cutoff) {
			continue
		}
		delete(t.rows, id)
		delete(t.found, id)
		gone = append(gone, e.row.PeerID)
	}
	return gone
}

// forgetGone removes from the table, live and stored, the peers down for
// longer than ForgetAfter: a peer that left for good no longer fills
// hyphae peers. One that comes back is found again like a new one.
func (o *Overlay) forgetGone(now time.Time) {
	pf, _ := o.peers.(peerForgetter)
	for _, id := range o.table.forget(now.Add(-o.cfg.ForgetAfter)) {
		o.log.Info("overlay: peer forgotten", "peer", id, "down_longer_than", o.cfg.ForgetAfter)
		if pf == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(o.ctx, storeTimeout)
		if err := pf.DeletePeer(ctx, id); err != nil && o.ctx.Err() == nil {
			o.log.Warn("overlay: forgetting peer", "peer", id, "err", err)
		}
		cancel()
	}
}
