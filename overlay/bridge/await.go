package bridge

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
)

// resultWait is how long, after the ack, a job's result may take: the
// message's timeout_result, else the job's timeout plus the bus timeout,
// else an hour (the runners' default job timeout) plus the bus timeout.
func (b *Bridge) resultWait(m *model.Message) time.Duration {
	if m.TimeoutResult > 0 {
		return time.Duration(m.TimeoutResult) * time.Second
	}
	run := time.Hour
	if len(m.Job) == 1 && m.Job[0].Timeout > 0 {
		run = time.Duration(m.Job[0].Timeout) * time.Second
	}
	return run + b.cfg.Timeout
}

// overdue fails the jobs of context ctxID whose acknowledged message never
// brought a result back in time (the runner vanished after accepting it),
// so a waiter is never left hanging.
func (b *Bridge) overdue(ctxID uint64) {
	keys, err := b.st.Bus.AwaitDue(b.ctx, ctxID, time.Now(), 64)
	if err != nil {
		return
	}
	for _, k := range keys {
		m, err := b.st.Bus.LoadMessageKey(b.ctx, ctxID, k)
		if err != nil || len(m.Job) != 1 {
			_ = b.st.Bus.AwaitRemove(b.ctx, ctxID, k)
			continue
		}
		if b.waitsForItsRunner(ctxID, k, m) {
			continue
		}
		b.noResult(ctxID, k, m, fmt.Sprintf("no result from %s within %v of its ack", m.Dst, b.resultWait(m)))
	}
}

// waitsForItsRunner puts off the result deadline of message k (m) while
// the agent it went to is down and the lost-runner limits apply: its job
// is then unknown, and given up on only after Config.RunnerLostAfter
// (sweepRunners, or the scheduler for a flow's), not because the outage
// outlasted the job's own deadline.
func (b *Bridge) waitsForItsRunner(ctxID uint64, k string, m *model.Message) bool {
	if b.cfg.RunnerGrace <= 0 || b.cfg.RunnerLostAfter <= 0 {
		return false
	}
	dst, err := b.names.decode(m.Dst)
	if err != nil || !b.down.isDown(dst) {
		return false
	}
	_ = b.st.Bus.AwaitAdd(b.ctx, ctxID, k, time.Now().Add(b.cfg.RunnerLostAfter))
	return true
}

// noResult ends the sent job of message k (m) with reason, as its result
// will not come, and the message with it.
func (b *Bridge) noResult(ctxID uint64, k string, m *model.Message, reason string) {
	_ = b.st.Bus.AwaitRemove(b.ctx, ctxID, k)
	ended, err := b.failSent(b.ctx, ctxID, m.Job[0], m.Job[0].Attempt, reason)
	switch {
	case err != nil:
		b.log.Warn("bridge: failing a job whose result will not come", "context", ctxID, "message", k, "err", err)
	case ended:
		b.log.Warn("bridge: no result", "context", ctxID, "message", k, "reason", reason)
		b.fault(m, reason) // its circuit breaker counts it (breaker_route.go)
		_ = b.st.Bus.SetMessageStatus(b.ctx, ctxID, k, model.MsgError, model.Hash{"error": reason})
	}
}

// downPeers remembers since when each peer seen down has been so, from
// the overlay's peer changes (seeded at start from the peer table, whose
// peers a restart restores down), when the jobs sent to each need a look
// next (sweepRunners), and which peers came back since the last look.
type downPeers struct {
	mu    sync.Mutex
	since map[peer.ID]time.Time // guarded by mu
	// next is when a down peer's jobs need the next look: absent, once
	// it has been down for the grace; zero, not until it changes state.
	next map[peer.ID]time.Time // guarded by mu
	back map[peer.ID]bool      // came back since the last look; guarded by mu
}

// changed notes a peer's new state (an overlay.OnPeerChange hook, which
// also reports changes of load or types: only a change between up and down
// counts) and reports whether a peer seen down is back.
func (d *downPeers) changed(id peer.ID, up bool) (back bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.since == nil {
		d.since, d.next, d.back = map[peer.ID]time.Time{}, map[peer.ID]time.Time{}, map[peer.ID]bool{}
	}
	_, known := d.since[id]
	switch {
	case up && known:
		delete(d.since, id)
		delete(d.next, id)
		d.back[id] = true
		return true
	case !up && !known:
		d.since[id] = time.Now()
	}
	return false
}

// due returns the peers whose jobs need a look now: those down for grace
// or more whose next look is due, with since when they are down (none
// when grace is 0: never), and those that came back since the last call.
func (d *downPeers) due(now time.Time, grace time.Duration) (down map[peer.ID]time.Time, back map[peer.ID]bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for id, since := range d.since {
		next, looked := d.next[id]
		switch {
		case grace <= 0 || now.Sub(since) < grace:
		case looked && (next.IsZero() || now.Before(next)):
		default:
			if down == nil {
				down = map[peer.ID]time.Time{}
			}
			down[id] = since
		}
	}
	back, d.back = d.back, map[peer.ID]bool{}
	return down, back
}

// later sets when the jobs of peer id, if it is still down, need the next
// look (zero: not until it changes state).
func (d *downPeers) later(id peer.ID, t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, down := d.since[id]; down {
		d.next[id] = t
	}
}

// isDown reports whether peer id is down.
func (d *downPeers) isDown(id peer.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, down := d.since[id]
	return down
}

// watchPeers keeps b.down current, and sends again at once what waits for
// a peer that comes back (peerBack).
func (b *Bridge) watchPeers(ctx context.Context) {
	b.tr.OnPeerChange(func(p *model.Peer) {
		id, err := b.names.decode(p.PeerID)
		if err != nil {
			return
		}
		up := p.State == model.PeerUp
		if !up {
			b.away.note(id)
		}
		if b.down.changed(id, up) {
			b.goIfRunning(func() { b.peerBack(id, "presence") })
		}
	})
	peers, err := b.tr.Peers(ctx)
	if err != nil {
		return
	}
	for _, p := range peers {
		if id, err := b.names.decode(p.PeerID); err == nil && p.State != model.PeerUp && !b.tr.Up(id) {
			b.down.changed(id, false)
		}
	}
}
