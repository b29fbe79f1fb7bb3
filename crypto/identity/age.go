package identity

import (
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/sha512"
	"fmt"

	"filippo.io/age"
	"filippo.io/edwards25519"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/internal/boundcache"
)

// peerKey is what encrypting to a peer needs, derived from its peer ID.
type peerKey struct {
	x   *ecdh.PublicKey      // X25519 public key (Montgomery u-coordinate)
	age *age.X25519Recipient // the same key as an age recipient
}

// peerKeys caches peerKeyOf results; conversion needs a point decompression
// and a Bech32 round trip.
var peerKeys = boundcache.New[peer.ID, *peerKey](1024)

// x25519Of derives the X25519 key of an ed25519 key, both as an age identity
// and as a crypto/ecdh key: its scalar is the first half of SHA-512(seed), as
// in ed25519 itself (X25519 clamps it).
func x25519Of(ed ed25519.PrivateKey) (*age.X25519Identity, *ecdh.PrivateKey, error) {
	h := sha512.Sum512(ed.Seed())
	defer clear(h[:])
	id, err := age.ParseX25519Identity(bech32Encode("AGE-SECRET-KEY-", h[:32]))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: deriving age identity: %w", ErrCorruptKey, err)
	}
	x, err := ecdh.X25519().NewPrivateKey(h[:32])
	if err != nil {
		return nil, nil, fmt.Errorf("%w: deriving X25519 key: %w", ErrCorruptKey, err)
	}
	return id, x, nil
}

// peerKeyOfPublicKey converts an ed25519 public key to the X25519 public key
// of the same key pair (Edwards point → Montgomery u-coordinate).
func peerKeyOfPublicKey(pub ed25519.PublicKey) (*peerKey, error) {
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: invalid ed25519 point: %w", ErrUnsupportedKey, err)
	}
	u := p.BytesMontgomery()
	r, err := age.ParseX25519Recipient(bech32Encode("age", u))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
	}
	x, err := ecdh.X25519().NewPublicKey(u)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
	}
	return &peerKey{x: x, age: r}, nil
}

// peerKeyOf returns the X25519 key of peer p, derived from the ed25519
// public key inlined in its peer ID. Results are cached.
func peerKeyOf(p peer.ID) (*peerKey, error) {
	if k, ok := peerKeys.Get(p); ok {
		return k, nil
	}
	pub, err := PublicKey(p)
	if err != nil {
		return nil, err
	}
	k, err := peerKeyOfPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("peer %s: %w", p, err)
	}
	peerKeys.Put(p, k)
	return k, nil
}

// RecipientFor returns the age recipient of peer p, derived from the ed25519
// public key inlined in its peer ID. Results are cached.
func RecipientFor(p peer.ID) (age.Recipient, error) {
	k, err := peerKeyOf(p)
	if err != nil {
		return nil, fmt.Errorf("identity.RecipientFor: %w", err)
	}
	return k.age, nil
}
