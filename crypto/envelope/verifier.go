package envelope

import (
	"errors"
	"fmt"
	"time"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/libp2p/go-libp2p/core/peer"
)

// DefaultSkew is the clock-skew window used when Verifier.Skew is zero.
const DefaultSkew = 2 * time.Minute

// Verifier checks received envelopes. The zero value of each optional field
// selects its default. A Verifier is safe for concurrent use once set up.
type Verifier struct {
	Self    *identity.Identity // needed by Open only
	Skew    time.Duration      // accepted |timestamp − now|; 0 means DefaultSkew
	MaxSize int                // bound on the encoded envelope; 0 means DefaultMaxSize
	Now     func() time.Time   // clock; nil means time.Now
}

// Check decodes b and validates it as a message sent by author (the
// gossipsub author, or the remote peer of a direct stream): size, structure
// and version, known type, sender == author, signature, and timestamp
// within the skew window. It does not look at the recipient or the payload;
// see Open. Errors wrap one sentinel; see Reason.
func (v *Verifier) Check(b []byte, author peer.ID) (*Envelope, error) {
	env, signed, err := unmarshalSigned(b, v.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("envelope.Check: %w", err)
	}
	if !env.Type.Valid() {
		return nil, fmt.Errorf("envelope.Check: %w: %d", ErrUnknownType, uint8(env.Type))
	}
	if env.From != author {
		return nil, fmt.Errorf("envelope.Check: %w: from %s, author %s", ErrAuthorMismatch, env.From, author)
	}
	if err := verifySignature(env, signed); err != nil {
		return nil, fmt.Errorf("envelope.Check: %w", err)
	}
	if err := v.checkTime(env.Time); err != nil {
		return nil, fmt.Errorf("envelope.Check: %w", err)
	}
	return env, nil
}

// checkTime rejects a timestamp further than the skew window from now.
func (v *Verifier) checkTime(t time.Time) error {
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	skew := v.Skew
	if skew <= 0 {
		skew = DefaultSkew
	}
	d := now().Sub(t)
	if d > skew || d < -skew {
		return fmt.Errorf("%w: %v off, window ±%v", ErrSkew, d.Round(time.Millisecond), skew)
	}
	return nil
}

// Open decrypts the payload of an envelope that passed Check. An envelope
// addressed to someone else gives ErrNotForMe, which callers should ignore
// rather than punish; a payload that does not decrypt gives ErrDecrypt. The
// payload must be a hyphae-pair age file from env.From to Self (so only the
// sender whose signature Check verified can have written it) or a plain
// X25519 age file to Self.
func (v *Verifier) Open(env *Envelope) ([]byte, error) {
	if v.Self == nil {
		return nil, errors.New("envelope.Open: Verifier has no Self identity")
	}
	if env.To != v.Self.PeerID() {
		return nil, fmt.Errorf("envelope.Open: %w: to %s", ErrNotForMe, env.To)
	}
	pt, err := v.Self.DecryptFrom(env.From, env.Payload)
	if err != nil {
		return nil, fmt.Errorf("envelope.Open: %w: %w", ErrDecrypt, err)
	}
	return pt, nil
}
