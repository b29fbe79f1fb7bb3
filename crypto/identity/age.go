package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"fmt"
	"io"

	"filippo.io/age"
	"filippo.io/edwards25519"
	"github.com/libp2p/go-libp2p/core/peer"
)

// recipients caches RecipientFor results; conversion needs a point
// decompression and a Bech32 round trip.
var recipients = newBoundedCache[peer.ID, *age.X25519Recipient](1024)

// ageIdentityOf derives the age X25519 identity of an ed25519 key: its scalar
// is the first half of SHA-512(seed), as in ed25519 itself (X25519 clamps it).
func ageIdentityOf(ed ed25519.PrivateKey) (*age.X25519Identity, error) {
	h := sha512.Sum512(ed.Seed())
	defer clear(h[:])
	s := bech32Encode("AGE-SECRET-KEY-", h[:32])
	id, err := age.ParseX25519Identity(s)
	if err != nil {
		return nil, fmt.Errorf("%w: deriving age identity: %w", ErrCorruptKey, err)
	}
	return id, nil
}

// recipientOfPublicKey converts an ed25519 public key to the age X25519
// recipient of the same key pair (Edwards point → Montgomery u-coordinate).
func recipientOfPublicKey(pub ed25519.PublicKey) (*age.X25519Recipient, error) {
	p, err := new(edwards25519.Point).SetBytes(pub)
	if err != nil {
		return nil, fmt.Errorf("%w: invalid ed25519 point: %w", ErrUnsupportedKey, err)
	}
	r, err := age.ParseX25519Recipient(bech32Encode("age", p.BytesMontgomery()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupportedKey, err)
	}
	return r, nil
}

// RecipientFor returns the age recipient of peer p, derived from the ed25519
// public key inlined in its peer ID. Results are cached.
func RecipientFor(p peer.ID) (age.Recipient, error) {
	if r, ok := recipients.get(p); ok {
		return r, nil
	}
	pub, err := PublicKey(p)
	if err != nil {
		return nil, fmt.Errorf("identity.RecipientFor: %w", err)
	}
	r, err := recipientOfPublicKey(pub)
	if err != nil {
		return nil, fmt.Errorf("identity.RecipientFor %s: %w", p, err)
	}
	recipients.put(p, r)
	return r, nil
}

// Encrypt encrypts plaintext with age (binary format, no armour) to peer to.
// age is anonymous: the ciphertext does not say who wrote it, so sign it too.
func Encrypt(to peer.ID, plaintext []byte) ([]byte, error) {
	r, err := RecipientFor(to)
	if err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	var buf bytes.Buffer
	buf.Grow(len(plaintext) + 256)
	w, err := age.Encrypt(&buf, r)
	if err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	if _, err := w.Write(plaintext); err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	return buf.Bytes(), nil
}

// Encrypt is the package function Encrypt, for convenience; the sender's key
// plays no part in age encryption.
func (i *Identity) Encrypt(to peer.ID, plaintext []byte) ([]byte, error) {
	return Encrypt(to, plaintext)
}

// Decrypt opens an age ciphertext encrypted to this identity. Any failure
// (not for us, tampered, truncated, malformed) wraps ErrDecrypt. The
// plaintext is never larger than the ciphertext.
func (i *Identity) Decrypt(ciphertext []byte) ([]byte, error) {
	r, err := age.Decrypt(bytes.NewReader(ciphertext), i.ageID)
	if err != nil {
		return nil, fmt.Errorf("identity.Decrypt: %w: %w", ErrDecrypt, err)
	}
	out := make([]byte, 0, len(ciphertext))
	out, err = readAllInto(out, r)
	if err != nil {
		return nil, fmt.Errorf("identity.Decrypt: %w: %w", ErrDecrypt, err)
	}
	return out, nil
}

// readAllInto appends everything from r to buf.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	w := bytes.NewBuffer(buf)
	_, err := w.ReadFrom(r)
	return w.Bytes(), err
}
