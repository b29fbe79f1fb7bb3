package identity

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"filippo.io/age"
	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/crypto/chacha20poly1305"
)

// PairStanzaType is the age stanza type of a pairwise-wrapped file key:
//
//	-> hyphae-pair <base64 24-byte nonce>
//	<base64 XChaCha20-Poly1305(wrap key, nonce, file key)>
//
// Base64 is standard, unpadded, as everywhere in age. See the package doc.
const PairStanzaType = "hyphae-pair"

// fileKeySize is the size of an age file key (age v1).
const fileKeySize = 16

// b64 is age's stanza encoding: standard alphabet, no padding, canonical.
var b64 = base64.RawStdEncoding.Strict()

// pairRecipient is the age.Recipient wrapping file keys from one sender to
// one recipient with their pairwise wrap key.
type pairRecipient struct {
	from *Identity
	to   peer.ID
}

// Wrap implements age.Recipient: one hyphae-pair stanza with a fresh random
// nonce.
func (r pairRecipient) Wrap(fileKey []byte) ([]*age.Stanza, error) {
	a, err := r.from.pairAEAD(r.to, true)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, chacha20poly1305.NonceSizeX)
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (it aborts instead)
	return []*age.Stanza{{
		Type: PairStanzaType,
		Args: []string{b64.EncodeToString(nonce)},
		Body: a.Seal(nil, nonce, fileKey, nil),
	}}, nil
}

// pairIdentity is the age.Identity unwrapping hyphae-pair stanzas sent by
// one peer to self. The wrap key is derived only if such a stanza shows up.
type pairIdentity struct {
	self *Identity
	from peer.ID
}

// Unwrap implements age.Identity: the first hyphae-pair stanza that opens
// gives the file key; none gives age.ErrIncorrectIdentity.
func (p pairIdentity) Unwrap(stanzas []*age.Stanza) ([]byte, error) {
	for _, s := range stanzas {
		fk, err := p.unwrap(s)
		if errors.Is(err, age.ErrIncorrectIdentity) {
			continue
		}
		return fk, err
	}
	return nil, age.ErrIncorrectIdentity
}

// unwrap opens one stanza. Other stanza types and bodies that do not
// authenticate (another sender or recipient) are age.ErrIncorrectIdentity.
func (p pairIdentity) unwrap(s *age.Stanza) ([]byte, error) {
	if s.Type != PairStanzaType {
		return nil, age.ErrIncorrectIdentity
	}
	nonce, err := parsePairStanza(s)
	if err != nil {
		return nil, err
	}
	a, err := p.self.pairAEAD(p.from, false)
	if err != nil {
		return nil, err
	}
	fk, err := a.Open(nil, nonce, s.Body, nil)
	if err != nil {
		return nil, age.ErrIncorrectIdentity
	}
	return fk, nil
}

// parsePairStanza checks the shape of a hyphae-pair stanza and returns its
// nonce. The body must be exactly one sealed file key: a fixed size keeps
// out ciphertexts crafted to open under several keys, as in age.
func parsePairStanza(s *age.Stanza) ([]byte, error) {
	if len(s.Args) != 1 {
		return nil, fmt.Errorf("%w: %d arguments, want 1", errBadPairStanza, len(s.Args))
	}
	nonce, err := b64.DecodeString(s.Args[0])
	if err != nil || len(nonce) != chacha20poly1305.NonceSizeX {
		return nil, fmt.Errorf("%w: bad nonce", errBadPairStanza)
	}
	if len(s.Body) != fileKeySize+chacha20poly1305.Overhead {
		return nil, fmt.Errorf("%w: body is %d bytes, want %d", errBadPairStanza,
			len(s.Body), fileKeySize+chacha20poly1305.Overhead)
	}
	return nonce, nil
}
