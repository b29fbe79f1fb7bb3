package identity

import (
	"bytes"
	"errors"
	"testing"

	"filippo.io/age"
	"golang.org/x/crypto/chacha20poly1305"
)

// FuzzDecryptFrom: opening never panics, every failure wraps ErrDecrypt, and
// whatever opens is no larger than its ciphertext.
func FuzzDecryptFrom(f *testing.F) {
	alice, bob := seeded(f, 1), seeded(f, 2)
	pair := mustEncryptTo(f, alice, bob.PeerID(), []byte("fuzz pair"))
	plain, err := Encrypt(bob.PeerID(), []byte("fuzz plain"))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range [][]byte{pair, plain, pair[:len(pair)/2], append(bytes.Clone(pair), 0), nil} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct []byte) {
		pt, err := bob.DecryptFrom(alice.PeerID(), ct)
		if err != nil && !errors.Is(err, ErrDecrypt) {
			t.Fatalf("unclassified error: %v", err)
		}
		if len(pt) > len(ct) {
			t.Fatalf("plaintext %d bytes from %d", len(pt), len(ct))
		}
	})
}

// FuzzPairStanza: unwrapping any stanza never panics, fails either as
// malformed or as not ours, and succeeds only for the genuine one.
// The genuine stanza must be the same in every fuzz worker process, so its
// nonce is fixed rather than random as in Wrap.
func FuzzPairStanza(f *testing.F) {
	alice, bob := seeded(f, 1), seeded(f, 2)
	fileKey := bytes.Repeat([]byte{7}, fileKeySize)
	good, err := fixedNonceStanza(alice, bob, fileKey)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good[0].Type, good[0].Args[0], good[0].Body)
	f.Add(good[0].Type, good[0].Args[0]+"=", good[0].Body)
	f.Add("X25519", good[0].Args[0], good[0].Body)
	f.Add(good[0].Type, "", []byte{})
	id := pairIdentity{self: bob, from: alice.PeerID()}
	f.Fuzz(func(t *testing.T, typ, arg string, body []byte) {
		s := &age.Stanza{Type: typ, Args: []string{arg}, Body: body}
		fk, err := id.Unwrap([]*age.Stanza{s})
		switch {
		case err == nil && (arg != good[0].Args[0] || !bytes.Equal(body, good[0].Body) || !bytes.Equal(fk, fileKey)):
			t.Fatalf("forged stanza opened: %q %x -> %x", arg, body, fk)
		case err != nil && !errors.Is(err, age.ErrIncorrectIdentity) && !errors.Is(err, errBadPairStanza):
			t.Fatalf("unclassified error: %v", err)
		}
	})
}

// fixedNonceStanza wraps fileKey from alice to bob like pairRecipient.Wrap,
// but with a fixed nonce.
func fixedNonceStanza(alice, bob *Identity, fileKey []byte) ([]*age.Stanza, error) {
	a, err := alice.pairAEAD(bob.PeerID(), true)
	if err != nil {
		return nil, err
	}
	nonce := bytes.Repeat([]byte{3}, chacha20poly1305.NonceSizeX)
	return []*age.Stanza{{Type: PairStanzaType, Args: []string{b64.EncodeToString(nonce)}, Body: a.Seal(nil, nonce, fileKey, nil)}}, nil
}
