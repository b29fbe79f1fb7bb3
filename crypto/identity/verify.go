package identity

import (
	"crypto/ed25519"
	"fmt"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/internal/boundcache"
)

// pubKeys caches PublicKey's answers: every message received costs one.
var pubKeys = boundcache.New[peer.ID, ed25519.PublicKey](1024)

// PublicKey extracts the ed25519 public key inlined in an ed25519 peer ID.
// Any other kind of peer ID gives an error wrapping ErrUnsupportedKey. The
// key may be shared with other callers: do not modify it.
func PublicKey(p peer.ID) (ed25519.PublicKey, error) {
	if k, ok := pubKeys.Get(p); ok {
		return k, nil
	}
	k, err := extractPublicKey(p)
	if err == nil {
		pubKeys.Put(p, k)
	}
	return k, err
}

func extractPublicKey(p peer.ID) (ed25519.PublicKey, error) {
	pk, err := p.ExtractPublicKey()
	if err != nil {
		return nil, fmt.Errorf("identity.PublicKey %q: %w: %w", p, ErrUnsupportedKey, err)
	}
	if pk.Type() != crypto.Ed25519 {
		return nil, fmt.Errorf("identity.PublicKey %s: %w", p, ErrUnsupportedKey)
	}
	raw, err := pk.Raw()
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("identity.PublicKey %s: %w: bad key bytes", p, ErrUnsupportedKey)
	}
	return ed25519.PublicKey(raw), nil
}

// Verify checks that sig is from's ed25519 signature of msg. It returns nil,
// or an error wrapping ErrBadSignature or ErrUnsupportedKey.
func Verify(from peer.ID, msg, sig []byte) error {
	pub, err := PublicKey(from)
	if err != nil {
		return fmt.Errorf("identity.Verify: %w", err)
	}
	if !ed25519.Verify(pub, msg, sig) {
		return fmt.Errorf("identity.Verify %s: %w", from, ErrBadSignature)
	}
	return nil
}
