package identity

import (
	"bytes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"

	"filippo.io/age"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"

	"github.com/hyphae-run/hyphae/internal/boundcache"
)

// Identity is an agent's actor key with its derived peer ID and age identity.
// It is immutable (but for an internal cache of pairwise wrap keys) and safe
// for concurrent use.
type Identity struct {
	priv      crypto.PrivKey
	ed        ed25519.PrivateKey
	id        peer.ID
	ageID     *age.X25519Identity
	recipient string
	x25519    *ecdh.PrivateKey                          // same scalar as ageID
	pairs     *boundcache.Cache[pairKeyID, cipher.AEAD] // see pairkey.go
}

// Generate returns a fresh random identity (not written anywhere).
func Generate() (*Identity, error) {
	priv, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("identity.Generate: %w", err)
	}
	return FromPrivKey(priv)
}

// FromPrivKey wraps an existing libp2p private key, which must be ed25519.
func FromPrivKey(priv crypto.PrivKey) (*Identity, error) {
	ed, err := ed25519Of(priv)
	if err != nil {
		return nil, fmt.Errorf("identity.FromPrivKey: %w", err)
	}
	id, err := peer.IDFromPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("identity.FromPrivKey: %w: %w", ErrCorruptKey, err)
	}
	ageID, x, err := x25519Of(ed)
	if err != nil {
		return nil, fmt.Errorf("identity.FromPrivKey: %w", err)
	}
	return &Identity{
		priv:      priv,
		ed:        ed,
		id:        id,
		ageID:     ageID,
		recipient: ageID.Recipient().String(),
		x25519:    x,
		pairs:     boundcache.New[pairKeyID, cipher.AEAD](pairCacheSize),
	}, nil
}

// ed25519Of extracts and checks the standard-library form of an ed25519 key.
func ed25519Of(priv crypto.PrivKey) (ed25519.PrivateKey, error) {
	if priv == nil || priv.Type() != crypto.Ed25519 {
		return nil, ErrUnsupportedKey
	}
	raw, err := priv.Raw()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorruptKey, err)
	}
	if len(raw) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: key is %d bytes, want %d", ErrCorruptKey, len(raw), ed25519.PrivateKeySize)
	}
	ed := ed25519.NewKeyFromSeed(raw[:ed25519.SeedSize])
	if !bytes.Equal(ed, raw) {
		return nil, fmt.Errorf("%w: public key does not match seed", ErrCorruptKey)
	}
	return ed, nil
}

// PrivKey returns the libp2p private key (for libp2p.Identity).
func (i *Identity) PrivKey() crypto.PrivKey { return i.priv }

// PeerID returns the peer ID derived from the actor key.
func (i *Identity) PeerID() peer.ID { return i.id }

// AgeRecipient returns the "age1…" X25519 recipient string derived from the
// actor key; it is the same recipient RecipientFor(i.PeerID()) returns.
func (i *Identity) AgeRecipient() string { return i.recipient }

// AgeIdentity returns the age identity that decrypts what is encrypted to
// AgeRecipient.
func (i *Identity) AgeIdentity() age.Identity { return i.ageID }

// Sign returns the ed25519 signature of msg. Callers must include their own
// domain-separation prefix in msg. Ed25519 signing is deterministic: this is
// the signature crypto/ed25519.Sign makes, made by curve25519-voi, which
// takes about 60 % of its time (see "Signing and verification" in the package doc).
func (i *Identity) Sign(msg []byte) ([]byte, error) {
	return voi.Sign(voi.PrivateKey(i.ed), msg), nil
}
