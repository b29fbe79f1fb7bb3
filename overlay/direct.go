package overlay

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
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
	// reading); the frame then goes through gossipsub.
	directWriteTimeout = 2 * time.Second
	// directBackoff: after a direct send failed, or the peer ended our
	// stream, frames to that peer go through gossipsub for this long.
	directBackoff = 30 * time.Second
	// directPenalty: after a peer sent a frame the validator rejected, its
	// direct streams are refused for this long, so that what it sends meets
	// gossipsub's peer scoring.
	directPenalty = time.Minute
)

// errNoDirect: a direct stream to the peer is not to be tried now.
var errNoDirect = errors.New("no direct stream")

// directOut is this agent's stream to one peer.
type directOut struct {
	mu sync.Mutex     // serialises opening and writes
	s  network.Stream // guarded by mu; nil until opened or after it failed
}

// directState is the overlay's bookkeeping of direct streams.
type directState struct {
	mu      sync.Mutex
	out     map[peer.ID]*directOut // guarded by mu
	backoff map[peer.ID]time.Time  // no direct sends until then; guarded by mu
	refuse  map[peer.ID]time.Time  // inbound streams refused until then; guarded by mu
}

func newDirectState() *directState {
	return &directState{
		out:     make(map[peer.ID]*directOut),
		backoff: make(map[peer.ID]time.Time),
		refuse:  make(map[peer.ID]time.Time),
	}
}

// entry returns p's stream slot, creating it.
func (d *directState) entry(p peer.ID) *directOut {
	d.mu.Lock()
	defer d.mu.Unlock()
	e := d.out[p]
	if e == nil {
		e = &directOut{}
		d.out[p] = e
	}
	return e
}

// until records that m[p] holds until now+d.
func (d *directState) until(m map[peer.ID]time.Time, p peer.ID, dur time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	m[p] = time.Now().Add(dur)
}

// active reports whether m[p] still holds, forgetting it once it lapsed.
func (d *directState) active(m map[peer.ID]time.Time, p peer.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := m[p]
	if ok && time.Now().After(t) {
		delete(m, p)
		ok = false
	}
	return ok
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
	e := o.direct.entry(p)
	e.mu.Lock()
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
	buf := binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen32+len(frame)), uint64(len(frame)))
	buf = append(buf, frame...)
	_ = e.s.SetWriteDeadline(writeDeadline(ctx))
	if _, err := e.s.Write(buf); err != nil {
		_ = e.s.Reset()
		e.s = nil
		o.direct.until(o.direct.backoff, p, directBackoff)
		return fmt.Errorf("direct write: %w", err)
	}
	o.stats.direct.Add(1)
	return nil
}

// writeDeadline is directWriteTimeout from now, or ctx's deadline if sooner.
func writeDeadline(ctx context.Context) time.Time {
	t := time.Now().Add(directWriteTimeout)
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
// shutdown, then forgets the stream; an end p chose holds it back.
func (o *Overlay) watchDirect(p peer.ID, e *directOut, s network.Stream) {
	stop := context.AfterFunc(o.ctx, func() { _ = s.Reset() })
	defer stop()
	_, _ = io.Copy(io.Discard, s)
	_ = s.Reset()
	e.mu.Lock()
	if e.s == s {
		e.s = nil
	}
	e.mu.Unlock()
	if o.ctx.Err() == nil {
		o.direct.until(o.direct.backoff, p, directBackoff)
	}
}

// track counts the calling goroutine as one Shutdown waits for, unless
// shutting down (then it reports false).
func (o *Overlay) track() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return false
	}
	o.wg.Add(1)
	return true
}

// handleDirect reads frames from a peer's direct stream and judges each as
// the inbox validator judges a frame on our inbox topic. A frame that is
// rejected (malformed, too large, for another agent, or refused by the
// validator) ends the stream and refuses the peer's direct streams for
// directPenalty.
func (o *Overlay) handleDirect(s network.Stream) {
	from := s.Conn().RemotePeer()
	if o.direct.active(o.direct.refuse, from) || !o.track() {
		_ = s.Reset()
		return
	}
	defer o.wg.Done()
	stop := context.AfterFunc(o.ctx, func() { _ = s.Reset() })
	defer stop()
	defer s.Reset()
	r := bufio.NewReader(s)
	for {
		frame, err := readDirectFrame(r, o.cfg.MaxMessageSize)
		if errors.Is(err, io.EOF) || o.ctx.Err() != nil {
			return
		}
		if err == nil && o.takeDirect(from, frame) {
			continue
		}
		if err != nil && !errors.Is(err, errFrameTooLarge) && !errors.Is(err, errFrameShort) {
			return // the stream broke: nothing to blame the peer for
		}
		o.stats.refused.Add(1)
		o.direct.until(o.direct.refuse, from, directPenalty)
		o.log.Debug("overlay: direct stream refused", "peer", from, "err", err, "for", directPenalty)
		return
	}
}

// takeDirect judges one frame from a direct stream and delivers it when
// accepted. It reports false when the frame must be held against from.
func (o *Overlay) takeDirect(from peer.ID, b []byte) bool {
	f, err := decodeFrame(b)
	switch {
	case errors.Is(err, errFrameVersion):
		return true // a newer agent's frame: ignored, as on the inbox topic
	case err != nil || f.to != o.id:
		return false
	}
	res, checked := o.judge(o.ctx, from, f.payload)
	switch res {
	case ValidationAccept:
		o.stats.directIn.Add(1)
		select {
		case o.received <- Received{From: from, Data: f.payload, Topic: DirectTopic, Checked: checked}:
		case <-o.ctx.Done():
		}
		return true
	case ValidationReject:
		return false
	}
	return true // ignored: not for us after all, or not judged in time
}

// errFrameTooLarge: a direct frame's length prefix exceeds the limit.
var errFrameTooLarge = errors.New("direct frame too large")

// readDirectFrame reads one frame of at most limit bytes behind its uvarint
// length (at most binary.MaxVarintLen32 bytes). io.EOF means the stream
// ended cleanly between frames; errFrameShort and errFrameTooLarge are the
// peer's fault, any other error the stream's.
func readDirectFrame(r *bufio.Reader, limit int) ([]byte, error) {
	var n uint64
	for i := 0; ; i++ {
		c, err := r.ReadByte()
		switch {
		case err == io.EOF && i > 0:
			return nil, fmt.Errorf("%w: length cut short", errFrameShort)
		case err != nil:
			return nil, err
		case i == binary.MaxVarintLen32-1 && c >= 0x10:
			return nil, fmt.Errorf("%w: length overflows", errFrameShort)
		}
		n |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			break
		}
	}
	if n > uint64(limit) {
		return nil, fmt.Errorf("%w: %d bytes, max %d", errFrameTooLarge, n, limit)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %d bytes announced", errFrameShort, n)
		}
		return nil, err
	}
	return b, nil
}
