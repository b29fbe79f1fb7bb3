package overlay

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// handleDirect reads frames from a peer's direct stream and judges each as
// the inbox validator judges a frame on our inbox topic. Frames held
// against the peer (rejected by the validator, for another agent, or
// malformed) are counted; at directMaxStrikes within directPenalty its
// direct streams are refused for directPenalty, so that what it sends
// meets gossipsub's peer scoring instead. A malformed length or a cut
// frame ends the stream at once: nothing after it can be framed.
func (o *Overlay) handleDirect(s network.Stream) {
	from := s.Conn().RemotePeer()
	if o.direct.active(o.direct.refuse, from) || !o.track() {
		_ = s.Reset()
		return
	}
	defer o.untrack()
	stop := context.AfterFunc(o.ctx, func() { _ = s.Reset() })
	defer stop()
	defer s.Reset()
	r := bufio.NewReader(s)
	for o.readDirect(from, r) {
	}
}

// readDirect reads and handles one frame; false ends the stream.
func (o *Overlay) readDirect(from peer.ID, r *bufio.Reader) bool {
	frame, err := readDirectFrame(r, o.cfg.MaxMessageSize)
	switch {
	case err == nil:
		if o.takeDirect(from, frame) {
			return true
		}
		return !o.strike(from, "frame rejected")
	case errors.Is(err, errFrameShort) || errors.Is(err, errFrameTooLarge):
		o.strike(from, err.Error())
	}
	return false // malformed, or the stream ended, broke or shut down
}

// strike holds one frame against p; it reports whether p is now refused.
func (o *Overlay) strike(p peer.ID, why string) bool {
	o.stats.rejected.Add(1)
	if !o.direct.strike(p) {
		return false
	}
	o.stats.refused.Add(1)
	o.log.Info("overlay: refusing direct streams from peer", "peer", p, "last", why, "for", directPenalty)
	return true
}

// takeDirect judges one frame from a direct stream and delivers it when
// accepted. It reports false when the frame is held against from.
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
	// Read what arrives rather than allocate what the prefix announces.
	b, err := io.ReadAll(io.LimitReader(r, int64(n)))
	switch {
	case err != nil:
		return nil, err
	case uint64(len(b)) < n:
		return nil, fmt.Errorf("%w: %d of %d bytes", errFrameShort, len(b), n)
	}
	return b, nil
}
