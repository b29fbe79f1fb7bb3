package overlay

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// DirectProtocol is the stream protocol that carries frames to a peer this
// agent holds a connection to (see the package doc, "Direct streams").
const DirectProtocol protocol.ID = "/hyphae/bus/1.0.0"

// DirectTopic is Received.Topic for a frame that came on a direct stream.
const DirectTopic = "direct"

const (
	// directOpenTimeout bounds opening a stream on an open connection.
	directOpenTimeout = 2 * time.Second
	// directWriteTimeout bounds one frame's write (a receiver that stopped
	// reading), plus a second per directSlowLink bytes of the frame (a large
	// payload on a slow uplink); the frame then goes through gossipsub.
	directWriteTimeout = 2 * time.Second
	directSlowLink     = 64 << 10
	// directBackoff: after a direct send failed, or the peer ended our
	// stream, frames to that peer go through gossipsub for this long.
	directBackoff = time.Minute
	// directMaxStrikes frames held against a peer within directPenalty get
	// its direct streams refused for directPenalty.
	directMaxStrikes = 5
	directPenalty    = time.Minute
)

// directOut is this agent's stream to one peer.
type directOut struct {
	mu   sync.Mutex     // serialises opening and writes
	s    network.Stream // guarded by mu; nil until opened or after it failed
	gone bool           // swept from directState.out: take a fresh entry; guarded by mu
}

// directState is the overlay's bookkeeping of direct streams.
type directState struct {
	mu      sync.Mutex
	out     map[peer.ID]*directOut // guarded by mu
	backoff map[peer.ID]time.Time  // no direct sends until then; guarded by mu
	refuse  map[peer.ID]time.Time  // inbound streams refused until then; guarded by mu
	strikes map[peer.ID]strikes    // frames held against a peer; guarded by mu
}

// strikes counts frames held against a peer since a time.
type strikes struct {
	n     int
	since time.Time
}

func newDirectState() *directState {
	return &directState{
		out:     make(map[peer.ID]*directOut),
		backoff: make(map[peer.ID]time.Time),
		refuse:  make(map[peer.ID]time.Time),
		strikes: make(map[peer.ID]strikes),
	}
}

// lock returns p's stream slot, locked, creating it when there is none: a
// slot swept meanwhile is replaced by a fresh one, so every sender of p
// shares one slot.
func (d *directState) lock(p peer.ID) *directOut {
	for {
		d.mu.Lock()
		e := d.out[p]
		if e == nil {
			e = &directOut{}
			d.out[p] = e
		}
		d.mu.Unlock()
		e.mu.Lock()
		if !e.gone {
			return e
		}
		e.mu.Unlock()
	}
}

// sweep forgets what is kept about peers that no longer need it: the slots
// of peers not connected and without a stream (it ended with their
// connection), lapsed holds, and strikes older than directPenalty. A slot
// in use (a write under way) is left for the next sweep. So a long-running
// agent's bookkeeping follows the peers it talks to now, not every peer it
// ever talked to.
func (d *directState) sweep(now time.Time, connected func(peer.ID) bool) {
	d.mu.Lock()
	idle := slices.Collect(maps.Keys(d.out))
	d.mu.Unlock()
	idle = slices.DeleteFunc(idle, connected) // outside d.mu: it asks the swarm
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range idle {
		if e := d.out[p]; e != nil && e.mu.TryLock() {
			if e.s == nil {
				e.gone = true
				delete(d.out, p)
			}
			e.mu.Unlock()
		}
	}
	for _, m := range []map[peer.ID]time.Time{d.backoff, d.refuse} {
		maps.DeleteFunc(m, func(_ peer.ID, until time.Time) bool { return now.After(until) })
	}
	maps.DeleteFunc(d.strikes, func(_ peer.ID, s strikes) bool { return now.Sub(s.since) > directPenalty })
}

// until records that m[p] holds until now+d.
func (d *directState) until(m map[peer.ID]time.Time, p peer.ID, dur time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m[p] = time.Now().Add(dur)
}

// active reports whether m[p] still holds (sweep forgets it once lapsed).
func (d *directState) active(m map[peer.ID]time.Time, p peer.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := m[p]
	return ok && time.Now().Before(t)
}

// connected forgets the backoff of a peer that connects anew (an agent
// that restarted ended our stream on its way down).
func (d *directState) connected(_ network.Network, c network.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.backoff, c.RemotePeer())
}

// strike holds a frame against p. At directMaxStrikes within directPenalty
// p is refused for directPenalty, and strike reports true.
func (d *directState) strike(p peer.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	now := time.Now()
	s := d.strikes[p]
	if now.Sub(s.since) > directPenalty {
		s = strikes{since: now}
	}
	if s.n++; s.n < directMaxStrikes {
		d.strikes[p] = s
		return false
	}
	delete(d.strikes, p)
	d.refuse[p] = now.Add(directPenalty)
	return true
}

// canDirect reports whether a frame for p may go on a direct stream now:
// direct streams are on, p is connected, p's agent speaks DirectProtocol
// (or identify has not told yet) and no recent failure holds it back.
func (o *Overlay) canDirect(p peer.ID) bool {
	if o.cfg.NoDirect || !o.Connected(p) {
		return false
	}
	if protos, err := o.host.Peerstore().GetProtocols(p); err == nil && len(protos) > 0 && !slices.Contains(protos, DirectProtocol) {
		return false
	}
	return !o.direct.active(o.direct.backoff, p)
}

// sendDirect writes frame on this agent's stream to p, opening it on the
// existing connection when needed. On failure the stream is reset, p is
// held back for directBackoff, and the caller uses gossipsub.
func (o *Overlay) sendDirect(ctx context.Context, p peer.ID, frame []byte) error {
	e := o.direct.lock(p)
	defer e.mu.Unlock()
	if e.s == nil {
		s, err := o.openDirect(ctx, p)
		if err != nil {
			o.direct.until(o.direct.backoff, p, directBackoff)
			return err
		}
		if !o.spawn(func() { o.watchDirect(p, e, s) }) {
			_ = s.Reset()
			return ErrClosed
		}
		e.s = s
	}
	_ = e.s.SetWriteDeadline(writeDeadline(ctx, len(frame)))
	if _, err := e.s.Write(lengthPrefixed(frame)); err != nil {
		_ = e.s.Reset()
		e.s = nil
		o.direct.until(o.direct.backoff, p, directBackoff)
		return fmt.Errorf("direct write: %w", err)
	}
	o.stats.direct.Add(1)
	return nil
}

// lengthPrefixed returns frame behind its uvarint length, in a new slice
// (one write, one yamux frame).
func lengthPrefixed(frame []byte) []byte {
	b := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen32+len(frame)), uint64(len(frame)))
	return append(b, frame...)
}

// writeDeadline is when a write of n bytes is given up: directWriteTimeout
// and a second per directSlowLink bytes from now, or ctx's deadline if
// sooner.
func writeDeadline(ctx context.Context, n int) time.Time {
	t := time.Now().Add(directWriteTimeout + time.Duration(n)*time.Second/directSlowLink)
	if dl, ok := ctx.Deadline(); ok && dl.Before(t) {
		return dl
	}
	return t
}

// openDirect opens a DirectProtocol stream to p on an open connection
// (never dialling: Send dials for gossipsub and comes back here).
func (o *Overlay) openDirect(ctx context.Context, p peer.ID) (network.Stream, error) {
	ctx, cancel := context.WithTimeout(ctx, directOpenTimeout)
	defer cancel()
	s, err := o.host.NewStream(network.WithNoDial(ctx, "direct frame"), p, DirectProtocol)
	if err != nil {
		return nil, fmt.Errorf("direct stream: %w", err)
	}
	return s, nil
}

// watchDirect waits for p to end our stream (it never writes on it: a read
// returns when it resets or closes it, or the connection goes) or for
// shutdown, then forgets the stream; an end p chose holds it back (not one
// dropStale caused).
func (o *Overlay) watchDirect(p peer.ID, e *directOut, s network.Stream) {
	stop := context.AfterFunc(o.ctx, func() { _ = s.Reset() })
	defer stop()
	_, _ = io.Copy(io.Discard, s)
	_ = s.Reset()
	e.mu.Lock()
	mine := e.s == s // not already dropped with a stale connection
	if mine {
		e.s = nil
	}
	e.mu.Unlock()
	if mine && o.ctx.Err() == nil {
		o.direct.until(o.direct.backoff, p, directBackoff)
	}
}
