package identity

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"

	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/crypto/chacha20poly1305"
)

// pairInfo is the HKDF info string of pairwise wrap keys.
const pairInfo = "hyphae/age-pair/v1"

// pairCacheSize bounds the wrap keys one Identity keeps (two per peer it
// talks with, one for each direction).
const pairCacheSize = 2048

// pairKeyID names one cached wrap key: the peer, and whether this identity
// is the sender (send) or the recipient of what the key wraps.
type pairKeyID struct {
	peer peer.ID
	send bool
}

// pairAEAD returns the XChaCha20-Poly1305 AEAD keyed with the wrap key for
// messages from i to p (send) or from p to i (!send), deriving and caching
// it on first use.
func (i *Identity) pairAEAD(p peer.ID, send bool) (cipher.AEAD, error) {
	id := pairKeyID{peer: p, send: send}
	if a, ok := i.pairs.Get(id); ok {
		return a, nil
	}
	a, err := i.derivePairAEAD(p, send)
	if err != nil {
		return nil, fmt.Errorf("pairwise key with %s: %w", p, err)
	}
	i.pairs.Put(id, a)
	return a, nil
}

// derivePairAEAD computes the wrap key for sender S and recipient R:
//
//	HKDF-SHA256(ikm = X25519(S, R), salt = S_x25519 ‖ R_x25519, info = pairInfo)
//
// The shared secret is the same both ways; the salt makes the key
// directional. An all-zero shared secret (a low-order peer key) is refused.
func (i *Identity) derivePairAEAD(p peer.ID, send bool) (cipher.AEAD, error) {
	pk, err := peerKeyOf(p)
	if err != nil {
		return nil, err
	}
	shared, err := i.x25519.ECDH(pk.x) // fails on an all-zero result
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
	}
	defer clear(shared)
	sender, recipient := i.x25519.PublicKey(), pk.x
	if !send {
		sender, recipient = recipient, sender
	}
	salt := append(sender.Bytes(), recipient.Bytes()...)
	key, err := hkdf.Key(sha256.New, shared, salt, pairInfo, chacha20poly1305.KeySize)
	if err != nil {
		return nil, err
	}
	defer clear(key)
	return chacha20poly1305.NewX(key)
}
