package identity

import (
	"crypto/ed25519"
	"fmt"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/hyphae-run/hyphae/internal/boundcache"
)

// PublicKey extracts the ed25519 public key inlined in an ed25519 peer ID.
// Any other kind of peer ID gives an error wrapping ErrUnsupportedKey. It
// is not cached: what is derived from it on every message (the expanded
// key for Verify, the X25519 key for encryption) is.
func PublicKey(p peer.ID) (ed25519.PublicKey, error) {
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
// or an error wrapping ErrBadSignature or ErrUnsupportedKey. It accepts
// exactly what crypto/ed25519.Verify accepts (see "Signing and verification"
// in the package doc).
func Verify(from peer.ID, msg, sig []byte) error {
	x, err := expandedKey(from)
	if err != nil {
		return fmt.Errorf("identity.Verify: %w", err)
	}
	if x == nil || !voi.VerifyExpandedWithOptions(x, msg, sig, stdlibRules) {
		return fmt.Errorf("identity.Verify %s: %w", from, ErrBadSignature)
	}
	return nil
}

// stdlibRules makes curve25519-voi accept what crypto/ed25519 accepts.
var stdlibRules = &voi.Options{Verify: voi.VerifyOptionsStdLib}

// expandedKeys caches the precomputed form of senders' public keys.
var expandedKeys = boundcache.New[peer.ID, *voi.ExpandedPublicKey](1024)

// expandedKey is from's public key, precomputed for verification; nil
// when its 32 bytes are no point on the curve, which no signature
// verifies (crypto/ed25519.Verify says false for such a key too).
func expandedKey(from peer.ID) (*voi.ExpandedPublicKey, error) {
	if x, ok := expandedKeys.Get(from); ok {
		return x, nil
	}
	pub, err := PublicKey(from)
	if err != nil {
		return nil, err
	}
	x, err := voi.NewExpandedPublicKey(voi.PublicKey(pub))
	if err != nil {
		return nil, nil
	}
	expandedKeys.Put(from, x)
	return x, nil
}
