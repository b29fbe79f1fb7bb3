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
	keys, err := b.st.AwaitDue(b.ctx, ctxID, time.Now(), 64)
	if err != nil {
		return
	}
	for _, k := range keys {
		m, err := b.st.LoadMessageKey(b.ctx, ctxID, k)
		if err != nil || len(m.Job) != 1 {
			_ = b.st.AwaitRemove(b.ctx, ctxID, k)
			continue
		}
		b.noResult(ctxID, k, m, fmt.Sprintf("no result from %s within %v of its ack", m.Dst, b.resultWait(m)))
	}
}

// noResult ends the sent job of message k (m) with reason, as its result
// will not come, and the message with it.
func (b *Bridge) noResult(ctxID uint64, k string, m *model.Message, reason string) {
	_ = b.st.AwaitRemove(b.ctx, ctxID, k)
	ended, err := b.failSent(b.ctx, ctxID, m.Job[0], m.Job[0].Attempt, reason)
	switch {
	case err != nil:
		b.log.Warn("bridge: failing a job whose result will not come", "context", ctxID, "message", k, "err", err)
	case ended:
		b.log.Warn("bridge: no result", "context", ctxID, "message", k, "reason", reason)
		_ = b.st.SetMessageStatus(b.ctx, ctxID, k, model.MsgError, model.Hash{"error": reason})
	}
}

// lostRunners fails the sent jobs of context ctxID (flows' jobs aside: the
// scheduler re-dispatches those) whose runner's agent is among lost (down
// for longer than Config.RunnerGrace), as Nomad marks a down node's
// allocations lost: without it a job whose agent never returns waits for
// its result deadline, its timeout plus bus.timeout (an hour and ten
// minutes by default). A result that comes later is dropped (the job has
// ended).
func (b *Bridge) lostRunners(ctxID uint64, lost map[peer.ID]bool) {
	if len(lost) == 0 {
		return
	}
	keys, err := b.st.AwaitList(b.ctx, ctxID, 1000)
	if err != nil {
		return
	}
	for _, k := range keys {
		m, err := b.st.LoadMessageKey(b.ctx, ctxID, k)
		if err != nil || len(m.Job) != 1 || m.Job[0].FlowID != 0 {
			continue
		}
		if dst, err := b.names.decode(m.Dst); err == nil && lost[dst] {
			b.noResult(ctxID, k, m, fmt.Sprintf("runner %s lost: down for more than %v (supervisor.runner_grace)", m.Dst, b.cfg.RunnerGrace))
		}
	}
}

// downPeers remembers since when each peer seen down has been so, from
// the overlay's peer changes (seeded at start from the peer table, whose
// peers a restart restores down), and which of them lostRunners has
// dealt with: once per time down, since only an agent that is up
// acknowledges the jobs it is sent, so a lost one gains no new ones.
type downPeers struct {
	mu    sync.Mutex
	since map[peer.ID]time.Time // guarded by mu
	swept map[peer.ID]bool      // lost peers already dealt with; guarded by mu
}

// changed notes a peer's new state (an overlay.OnPeerChange hook).
func (d *downPeers) changed(id peer.ID, up bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.since == nil {
		d.since, d.swept = map[peer.ID]time.Time{}, map[peer.ID]bool{}
	}
	_, known := d.since[id]
	switch {
	case up:
		delete(d.since, id)
		delete(d.swept, id)
	case !known:
		d.since[id] = time.Now()
	}
}

// lost returns the peers down for grace or longer that it has not
// returned before (nil for none, or when grace is 0: never).
func (d *downPeers) lost(grace time.Duration) map[peer.ID]bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out map[peer.ID]bool
	for id, since := range d.since {
		if grace > 0 && !d.swept[id] && time.Since(since) >= grace {
			if out == nil {
				out = map[peer.ID]bool{}
			}
			out[id], d.swept[id] = true, true
		}
	}
	return out
}

// watchPeers keeps b.down current.
func (b *Bridge) watchPeers(ctx context.Context) {
	b.tr.OnPeerChange(func(p *model.Peer) {
		if id, err := b.names.decode(p.PeerID); err == nil {
			b.down.changed(id, p.State == model.PeerUp)
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
