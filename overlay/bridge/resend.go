package bridge

import (
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A message for a peer that is away is resent with a growing backoff (up
// to 30 s), so when the peer returns the next try may be that far off.
// The bridge watches for the return instead: a peer that goes down, or
// that a retransmission found unconnected, is watched (awayPeers), and
// when the overlay says it is up again (presence) or connected, what the
// outbox holds for it goes at once, its backoff started again (peerBack).

// awayPeers are the peers watched for their return.
type awayPeers struct {
	mu   sync.Mutex
	m    map[peer.ID]bool      // guarded by mu
	last map[peer.ID]time.Time // the last resend on a return; guarded by mu
}

// maxAway bounds the peers watched; past it, a return is noticed by
// presence alone.
const maxAway = 4096

// resendGap is the least time between two resends for the same peer's
// return: presence and the connection usually report one return both.
const resendGap = time.Second

// resendScan bounds the outbox entries looked at per context on a return.
const resendScan = 10000

// note watches peer id for its return.
func (a *awayPeers) note(id peer.ID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m, a.last = map[peer.ID]bool{}, map[peer.ID]time.Time{}
	}
	if len(a.m) < maxAway {
		a.m[id] = true
	}
}

// returned takes the watched peers for which connected reports true.
func (a *awayPeers) returned(connected func(peer.ID) bool) []peer.ID {
	a.mu.Lock()
	ids := make([]peer.ID, 0, len(a.m))
	for id := range a.m {
		ids = append(ids, id)
	}
	a.mu.Unlock()
	var back []peer.ID
	for _, id := range ids { // Connected asks the host: not under a.mu
		if connected(id) {
			back = append(back, id)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range back {
		delete(a.m, id)
	}
	return back
}

// resendDue reports whether a return of peer id should resend its
// messages now: not when one did within resendGap.
func (a *awayPeers) resendDue(id peer.ID, now time.Time) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.last == nil {
		a.m, a.last = map[peer.ID]bool{}, map[peer.ID]time.Time{}
	}
	if now.Sub(a.last[id]) < resendGap {
		return false
	}
	a.last[id] = now
	delete(a.m, id)
	if len(a.last) > maxAway { // forget old returns: only the recent ones matter
		for p, t := range a.last {
			if now.Sub(t) >= resendGap {
				delete(a.last, p)
			}
		}
	}
	return true
}

// watchReturns resends at once for each watched peer now connected (from
// outboxLoop's tick).
func (b *Bridge) watchReturns() {
	for _, id := range b.away.returned(b.tr.Connected) {
		b.goIfRunning(func() { b.peerBack(id, "connection") })
	}
}

// peerBack makes every outbox message for peer id due now, its backoff
// started again, and sends each: the peer came back (via: presence or
// connection). Counted and logged, so the resend is seen to come from the
// return and not from the backoff.
func (b *Bridge) peerBack(id peer.ID, via string) {
	if !b.away.resendDue(id, time.Now()) {
		return
	}
	name := b.names.name(id)
	n := 0
	for _, ctxID := range b.contextIDs() {
		keys, err := b.st.Bus.OutboxResendNow(b.ctx, ctxID, name, time.Now(), resendScan)
		if err != nil {
			if b.ctx.Err() == nil {
				b.log.Warn("bridge: peer back: resending its messages", "peer", name, "context", ctxID, "err", err)
			}
			continue
		}
		for _, k := range keys {
			b.trySend(ctxID, k)
		}
		n += len(keys)
	}
	if n > 0 {
		b.stats.resentOnReturn(n)
		b.log.Info("bridge: peer back: its messages sent again at once", "peer", name, "via", via, "messages", n)
	}
}
