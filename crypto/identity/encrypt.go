package identity

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"filippo.io/age"
	"github.com/libp2p/go-libp2p/core/peer"
)

// ageOverhead is room for an age header with one stanza, the stream nonce
// and one chunk tag.
const ageOverhead = 256

// Encrypt encrypts plaintext with age (binary format, no armour) to peer to,
// with a standard X25519 stanza. age is anonymous: the ciphertext does not
// say who wrote it, so sign it too. Identity.EncryptTo is much cheaper.
func Encrypt(to peer.ID, plaintext []byte) ([]byte, error) {
	r, err := RecipientFor(to)
	if err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	ct, err := encryptWith(r, plaintext)
	if err != nil {
		return nil, fmt.Errorf("identity.Encrypt: %w", err)
	}
	return ct, nil
}

// Encrypt is the package function Encrypt, for convenience; the sender's key
// plays no part in it.
func (i *Identity) Encrypt(to peer.ID, plaintext []byte) ([]byte, error) {
	return Encrypt(to, plaintext)
}

// EncryptTo encrypts plaintext from i to peer to: an age file (binary, fresh
// random file key) whose file key is wrapped in a hyphae-pair stanza with
// the pairwise key of i and to (see the package doc). Only to can decrypt
// it, with DecryptFrom(i.PeerID(), …).
func (i *Identity) EncryptTo(to peer.ID, plaintext []byte) ([]byte, error) {
	ct, err := encryptWith(pairRecipient{from: i, to: to}, plaintext)
	if err != nil {
		return nil, fmt.Errorf("identity.EncryptTo: %w", err)
	}
	return ct, nil
}

// Decrypt opens an age ciphertext encrypted to this identity with a plain
// X25519 stanza (Encrypt, or the age tool). Any failure (not for us,
// tampered, truncated, malformed, a hyphae-pair stanza) wraps ErrDecrypt.
// The plaintext is never larger than the ciphertext.
func (i *Identity) Decrypt(ciphertext []byte) ([]byte, error) {
	pt, err := decryptWith(ciphertext, i.ageID)
	if err != nil {
		return nil, fmt.Errorf("identity.Decrypt: %w: %w", ErrDecrypt, err)
	}
	return pt, nil
}

// DecryptFrom opens an age ciphertext that peer from encrypted to this
// identity: with EncryptTo (a hyphae-pair stanza, which only opens if from
// really wrote it) or with a plain X25519 stanza, which says nothing about
// its writer. Any failure wraps ErrDecrypt. The plaintext is never larger
// than the ciphertext.
func (i *Identity) DecryptFrom(from peer.ID, ciphertext []byte) ([]byte, error) {
	pt, err := decryptWith(ciphertext, i.ageID, pairIdentity{self: i, from: from})
	if err != nil {
		return nil, fmt.Errorf("identity.DecryptFrom %s: %w: %w", from, ErrDecrypt, err)
	}
	return pt, nil
}

// encryptWith writes a binary age file of plaintext to r.
func encryptWith(r age.Recipient, plaintext []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(plaintext) + ageOverhead)
	w, err := age.Encrypt(&buf, r)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(plaintext); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decryptWith opens a binary age file with the first identity that matches.
// A one-chunk payload (every bus message) is opened by openOneChunk. Any
// other goes to age.DecryptReaderAt, which authenticates the final chunk up
// front and every other chunk as it is read; reading the whole plaintext in
// one call allocates less than streaming it through age.Decrypt.
func decryptWith(ciphertext []byte, ids ...age.Identity) ([]byte, error) {
	if pt, err := openOneChunk(ciphertext, ids...); !errors.Is(err, errNotOneChunk) {
		return pt, err
	}
	r, size, err := age.DecryptReaderAt(bytes.NewReader(ciphertext), int64(len(ciphertext)), ids...)
	if err != nil {
		return nil, err
	}
	if size > int64(len(ciphertext)) {
		return nil, fmt.Errorf("plaintext size %d exceeds ciphertext size %d", size, len(ciphertext))
	}
	pt := make([]byte, size)
	n, err := r.ReadAt(pt, 0)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("reading plaintext: %w", err)
	}
	if n != len(pt) {
		return nil, fmt.Errorf("reading plaintext: %d of %d bytes", n, len(pt))
	}
	return pt, nil
}
