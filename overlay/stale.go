package overlay

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/swarm"
)

// dropStale closes p's connections opened before since (when p was marked
// down) and forgets this agent's direct stream on them, then dials p
// afresh. A connection that outlived the silence is half-dead: TCP kept
// what was written on it during the outage and resends it only when its
// retransmission timer fires, which has backed off to many seconds, so
// frames written on it now would wait just as long. A fresh connection
// carries them at once.
func (o *Overlay) dropStale(p peer.ID, since time.Time) {
	dropped := 0
	for _, c := range o.host.Network().ConnsToPeer(p) {
		if c.Stat().Opened.Before(since) {
			o.direct.forget(p, c)
			_ = c.Close()
			dropped++
		}
	}
	if dropped == 0 {
		return
	}
	o.log.Info("overlay: peer back: fresh connection", "peer", p, "stale_closed", dropped)
	o.spawn(func() { o.redial(p) })
}

// Redials of a peer back on a fresh connection.
const (
	redialAttempts = 5
	redialJitter   = 250 * time.Millisecond
)

// redial connects to p again after dropStale. p sees this agent back at
// the same moment and dials too: both dial from their listen port (port
// reuse) to the other's, the two attempts meet as one TCP simultaneous
// open and the security handshake fails on both sides, and the swarm then
// holds p's addresses back for seconds. So a failed dial clears that hold
// and is retried after a random pause, which parts the two sides.
func (o *Overlay) redial(p peer.ID) {
	for i := range redialAttempts {
		if i > 0 && !o.sleep(rand.N(redialJitter)+redialJitter/5) {
			return
		}
		ctx, cancel := context.WithTimeout(o.ctx, connectTimeout)
		err := o.dial(ctx, p)
		cancel()
		if err == nil || o.ctx.Err() != nil {
			return
		}
		o.log.Debug("overlay: redial of a peer back failed", "peer", p, "attempt", i+1, "err", err)
		if sw, ok := o.host.Network().(*swarm.Swarm); ok {
			sw.Backoff().Clear(p)
		}
	}
}

// forget resets this agent's direct stream to p when it rides on c, so
// the next frame opens one on another connection.
func (d *directState) forget(p peer.ID, c network.Conn) {
	e := d.lock(p)
	defer e.mu.Unlock()
	if e.s != nil && e.s.Conn() == c {
		_ = e.s.Reset()
		e.s = nil
	}
}
