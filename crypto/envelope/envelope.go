package envelope

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

const (
	// Version is the wire-format version this package writes and accepts.
	Version uint8 = 1
	// Domain prefixes the signed bytes, so an envelope signature can never
	// be mistaken for a signature over anything else.
	Domain = "hyphae/envelope/v1\x00"
	// DefaultMaxSize bounds a whole encoded envelope unless the caller sets
	// another limit.
	DefaultMaxSize = 1 << 20
	// MaxPeerIDLen bounds each encoded peer ID (an ed25519 one is 38 bytes).
	MaxPeerIDLen = 64
	// SigSize is the length of the ed25519 signature.
	SigSize = 64
	// IDSize is the length of a message id.
	IDSize = 16
)

// headerSize is the fixed-width prefix: version, type, id, context, time, attempt.
const headerSize = 1 + 1 + IDSize + 8 + 8 + 4

// Envelope is one bus message. Payload is ciphertext; use Verifier.Open to
// get the plaintext.
type Envelope struct {
	Version uint8
	Type    Type
	ID      [IDSize]byte
	From    peer.ID
	To      peer.ID
	Context uint64
	Time    time.Time // millisecond precision, UTC
	Attempt uint32
	Payload []byte
	Sig     []byte
}

// NewID returns a fresh random message id.
func NewID() [IDSize]byte {
	var id [IDSize]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails (it aborts instead)
	return id
}

// IDString returns the message id as 32 lowercase hex digits.
func (e *Envelope) IDString() string { return hex.EncodeToString(e.ID[:]) }

// ReplayKey identifies the message for deduplication: the sender's peer ID
// (base58 string form), "/", and the hex message id.
func (e *Envelope) ReplayKey() string { return e.From.String() + "/" + e.IDString() }

// Size returns the length of e's encoding, without encoding it.
func (e *Envelope) Size() int {
	return headerSize + 1 + len(e.From) + 1 + len(e.To) + 4 + len(e.Payload) + 1 + len(e.Sig)
}

// msTime converts unix milliseconds to the UTC time Envelope.Time holds.
func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
