package overlay

import (
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Frame layout constants (see the package doc).
const (
	frameVersion  = 1
	nonceSize     = 8
	maxPeerIDSize = 64
	// pubsubOverhead is room left in MaxMessageSize for the pubsub envelope
	// (author, key, signature, sequence number, topic, protobuf framing).
	pubsubOverhead = 1024
)

var (
	errFrameVersion  = errors.New("unknown frame version")
	errFrameShort    = errors.New("truncated frame")
	errFrameTooLarge = errors.New("direct frame too large") // its length prefix is over the limit
)

// frame is a decoded inbox/relay frame.
type frame struct {
	to      peer.ID
	payload []byte
}

// encodeFrame returns a new slice holding to's frame around payload.
func encodeFrame(to peer.ID, payload []byte) ([]byte, error) {
	id := []byte(to)
	if len(id) == 0 || len(id) > maxPeerIDSize {
		return nil, fmt.Errorf("recipient id of %d bytes", len(id))
	}
	buf := make([]byte, 0, 2+len(id)+nonceSize+len(payload))
	buf = append(buf, frameVersion, byte(len(id)))
	buf = append(buf, id...)
	nonce := make([]byte, nonceSize)
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	buf = append(buf, nonce...)
	return append(buf, payload...), nil
}

// decodeFrame parses b; the payload aliases b.
func decodeFrame(b []byte) (frame, error) {
	if len(b) < 2 {
		return frame{}, errFrameShort
	}
	if b[0] != frameVersion {
		return frame{}, errFrameVersion
	}
	n := int(b[1])
	if n == 0 || n > maxPeerIDSize || len(b) < 2+n+nonceSize {
		return frame{}, errFrameShort
	}
	to, err := peer.IDFromBytes(b[2 : 2+n])
	if err != nil {
		return frame{}, fmt.Errorf("recipient: %w", err)
	}
	return frame{to: to, payload: b[2+n+nonceSize:]}, nil
}

// MaxPayload is the largest payload Send accepts.
func (o *Overlay) MaxPayload() int {
	return o.cfg.MaxMessageSize - pubsubOverhead - 2 - maxPeerIDSize - nonceSize
}
