package envelope

import (
	"fmt"
	"math"
	"time"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Seal builds a signed envelope from id to peer to: it encrypts plaintext
// with age to to's key (a hyphae-pair stanza wrapped with the pairwise key of
// id and to, see identity.EncryptTo), picks a new random message id, stamps
// the current time and signs.
func Seal(id *identity.Identity, to peer.ID, typ Type, ctxID uint64, attempt uint32, plaintext []byte) (*Envelope, error) {
	return seal(id, to, typ, ctxID, attempt, plaintext, id.EncryptTo)
}

// SealX25519 is Seal with age's plain X25519 stanza (identity.Encrypt: an
// ephemeral key agreement per message) instead of the pairwise one: the
// bus's plain path (bus.plain, the pair shortcut). Receivers open both
// alike (identity.DecryptFrom), so either side may use either.
func SealX25519(id *identity.Identity, to peer.ID, typ Type, ctxID uint64, attempt uint32, plaintext []byte) (*Envelope, error) {
	return seal(id, to, typ, ctxID, attempt, plaintext, identity.Encrypt)
}

// seal is Seal with encrypt as the age encryption to peer to.
func seal(id *identity.Identity, to peer.ID, typ Type, ctxID uint64, attempt uint32, plaintext []byte,
	encrypt func(peer.ID, []byte) ([]byte, error)) (*Envelope, error) {
	if !typ.Valid() {
		return nil, fmt.Errorf("envelope.Seal: %w: %d", ErrUnknownType, uint8(typ))
	}
	ct, err := encrypt(to, plaintext)
	if err != nil {
		return nil, fmt.Errorf("envelope.Seal: %w", err)
	}
	env := &Envelope{
		Version: Version,
		Type:    typ,
		ID:      NewID(),
		To:      to,
		Context: ctxID,
		Attempt: attempt,
		Payload: ct,
	}
	if err := env.Restamp(id, time.Now()); err != nil {
		return nil, fmt.Errorf("envelope.Seal: %w", err)
	}
	return env, nil
}

// Restamp sets the sender to id, the timestamp to now (truncated to the
// millisecond) and signs again. Retransmissions use it: they keep the message
// id (so the receiver deduplicates) but need a fresh timestamp to pass the
// receiver's skew check.
func (e *Envelope) Restamp(id *identity.Identity, now time.Time) error {
	e.Time = msTime(now.UnixMilli())
	return e.Sign(id)
}

// Sign sets the sender to id and signs every other field as they are now.
func (e *Envelope) Sign(id *identity.Identity) error {
	e.From = id.PeerID()
	if err := e.validate(); err != nil {
		return fmt.Errorf("envelope.Sign: %w", err)
	}
	sig, err := id.Sign(e.signedBytes())
	if err != nil {
		return fmt.Errorf("envelope.Sign: %w", err)
	}
	e.Sig = sig
	return nil
}

// validate checks that every field fits the wire format.
func (e *Envelope) validate() error {
	switch {
	case e.Version != Version:
		return fmt.Errorf("%w: %d", ErrBadVersion, e.Version)
	case !e.Type.Valid():
		return fmt.Errorf("%w: %d", ErrUnknownType, uint8(e.Type))
	case len(e.From) == 0 || len(e.From) > MaxPeerIDLen:
		return fmt.Errorf("%w: from peer ID length %d", ErrMalformed, len(e.From))
	case len(e.To) == 0 || len(e.To) > MaxPeerIDLen:
		return fmt.Errorf("%w: to peer ID length %d", ErrMalformed, len(e.To))
	case uint64(len(e.Payload)) > math.MaxUint32:
		return fmt.Errorf("%w: payload too long", ErrOversized)
	}
	return nil
}

// VerifySignature checks e's signature against its sender's key. It needs
// nothing but the envelope, so it also serves to re-check one kept at rest.
func (e *Envelope) VerifySignature() error {
	return verifySignature(e, e.signedBytes())
}

// verifySignature checks e.Sig over signed, which must be e.signedBytes().
func verifySignature(e *Envelope, signed []byte) error {
	if err := identity.Verify(e.From, signed, e.Sig); err != nil {
		return fmt.Errorf("envelope.VerifySignature: %w: %w", ErrBadSignature, err)
	}
	return nil
}
