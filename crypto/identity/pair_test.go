package identity

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"testing"

	"filippo.io/age"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
	"golang.org/x/crypto/chacha20poly1305"
)

// seeded returns a deterministic identity: the same byte, the same key.
func seeded(t testing.TB, b byte) *Identity {
	t.Helper()
	k, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{b}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	id, err := FromPrivKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustEncryptTo(t testing.TB, from *Identity, to peer.ID, pt []byte) []byte {
	t.Helper()
	ct, err := from.EncryptTo(to, pt)
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

func TestEncryptToRoundTrip(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	for _, n := range []int{0, 1, 1024, 64 << 10, 200 << 10} {
		pt := bytes.Repeat([]byte{'x'}, n)
		ct := mustEncryptTo(t, alice, bob.PeerID(), pt)
		if !bytes.Contains(ct, []byte("\n-> "+PairStanzaType+" ")) || bytes.Contains(ct, []byte("X25519")) {
			t.Fatalf("%d bytes: header is not one hyphae-pair stanza:\n%q", n, ct[:min(len(ct), 200)])
		}
		got, err := bob.DecryptFrom(alice.PeerID(), ct)
		if err != nil || !bytes.Equal(got, pt) {
			t.Fatalf("%d bytes: DecryptFrom: %d bytes, %v", n, len(got), err)
		}
	}
	a, b := mustEncryptTo(t, alice, bob.PeerID(), []byte("same")), mustEncryptTo(t, alice, bob.PeerID(), []byte("same"))
	if bytes.Equal(a, b) {
		t.Fatal("two encryptions of the same plaintext are equal")
	}
}

// TestDecryptFromOnlyTheRightPair: only the recipient, told the right
// sender, opens; the key is directional and the sender cannot be spoofed.
func TestDecryptFromOnlyTheRightPair(t *testing.T) {
	alice, bob, carol := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	ct := mustEncryptTo(t, alice, bob.PeerID(), []byte("for bob from alice"))
	for name, try := range map[string]func() ([]byte, error){
		"third party":          func() ([]byte, error) { return carol.DecryptFrom(alice.PeerID(), ct) },
		"spoofed sender":       func() ([]byte, error) { return bob.DecryptFrom(carol.PeerID(), ct) },
		"reverse direction":    func() ([]byte, error) { return alice.DecryptFrom(bob.PeerID(), ct) },
		"recipient as sender":  func() ([]byte, error) { return bob.DecryptFrom(bob.PeerID(), ct) },
		"Decrypt (no sender)":  func() ([]byte, error) { return bob.Decrypt(ct) },
		"sender not a peer ID": func() ([]byte, error) { return bob.DecryptFrom("garbage", ct) },
	} {
		if pt, err := try(); !errors.Is(err, ErrDecrypt) {
			t.Errorf("%s: %q, %v; want ErrDecrypt", name, pt, err)
		}
	}
}

// TestDecryptFromPlainX25519: a standard age X25519 file (Encrypt, the age
// tool, messages sealed before hyphae-pair) still opens, whoever the
// claimed sender.
func TestDecryptFromPlainX25519(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	ct, err := Encrypt(bob.PeerID(), []byte("plain age"))
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []peer.ID{alice.PeerID(), bob.PeerID()} {
		if got, err := bob.DecryptFrom(from, ct); err != nil || string(got) != "plain age" {
			t.Fatalf("from %s: %q, %v", from, got, err)
		}
	}
	if _, err := alice.DecryptFrom(bob.PeerID(), ct); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("plain file to bob opened by alice: %v", err)
	}
}

func TestDecryptFromRejectsEveryFlippedByte(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	ct := mustEncryptTo(t, alice, bob.PeerID(), []byte("tamper with me"))
	for i := range ct {
		for _, mask := range []byte{0x01, 0x40} {
			bad := bytes.Clone(ct)
			bad[i] ^= mask
			if _, err := bob.DecryptFrom(alice.PeerID(), bad); !errors.Is(err, ErrDecrypt) {
				t.Fatalf("byte %d ^ %#x accepted: %v", i, mask, err)
			}
		}
	}
	for i := range len(ct) {
		if _, err := bob.DecryptFrom(alice.PeerID(), ct[:i]); !errors.Is(err, ErrDecrypt) {
			t.Fatalf("truncated to %d bytes: %v", i, err)
		}
	}
	if _, err := bob.DecryptFrom(alice.PeerID(), append(bytes.Clone(ct), 0)); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("trailing byte: %v", err)
	}
}

// lowOrderPeer is a valid ed25519 peer ID whose key is the identity point:
// its X25519 form is u = 0, so any shared secret with it is all zeros.
func lowOrderPeer(t *testing.T) peer.ID {
	t.Helper()
	return peerOf(t, identityPoint())
}

func TestPairRejectsLowOrderKeys(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	weak := lowOrderPeer(t)
	if _, err := alice.EncryptTo(weak, []byte("x")); !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("EncryptTo low-order peer: %v", err)
	}
	ct := mustEncryptTo(t, alice, bob.PeerID(), []byte("x"))
	if _, err := bob.DecryptFrom(weak, ct); !errors.Is(err, ErrDecrypt) || !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("DecryptFrom low-order sender: %v", err)
	}
}

// specRecipient wraps like hyphae-pair, but with the wrap key computed here
// straight from the documented formula, to pin the derivation.
type specRecipient struct{ key []byte }

func (r specRecipient) Wrap(fileKey []byte) ([]*age.Stanza, error) {
	a, err := chacha20poly1305.NewX(r.key)
	if err != nil {
		return nil, err
	}
	nonce := bytes.Repeat([]byte{0x5a}, chacha20poly1305.NonceSizeX)
	return []*age.Stanza{{Type: "hyphae-pair", Args: []string{b64.EncodeToString(nonce)}, Body: a.Seal(nil, nonce, fileKey, nil)}}, nil
}

// x25519Test derives an X25519 key the way the package doc says.
func x25519Test(t *testing.T, seed byte) *ecdh.PrivateKey {
	t.Helper()
	h := sha512.Sum512(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
	k, err := ecdh.X25519().NewPrivateKey(h[:32])
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestPairKeyDerivationMatchesSpec(t *testing.T) {
	alice, bob := seeded(t, 1), seeded(t, 2)
	a, b := x25519Test(t, 1), x25519Test(t, 2)
	shared, err := a.ECDH(b.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	salt := append(a.PublicKey().Bytes(), b.PublicKey().Bytes()...)
	key, err := hkdf.Key(sha256.New, shared, salt, "hyphae/age-pair/v1", 32)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := encryptWith(specRecipient{key}, []byte("by the book"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bob.DecryptFrom(alice.PeerID(), ct); err != nil || string(got) != "by the book" {
		t.Fatalf("spec-derived wrap key: %q, %v", got, err)
	}
	if _, err := alice.DecryptFrom(bob.PeerID(), ct); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("the reverse direction shares the wrap key: %v", err)
	}
}

func TestParsePairStanza(t *testing.T) {
	nonce := b64.EncodeToString(make([]byte, chacha20poly1305.NonceSizeX))
	body := make([]byte, fileKeySize+chacha20poly1305.Overhead)
	if _, err := parsePairStanza(&age.Stanza{Type: PairStanzaType, Args: []string{nonce}, Body: body}); err != nil {
		t.Fatalf("well-formed stanza: %v", err)
	}
	for name, s := range map[string]*age.Stanza{
		"no args":          {Args: nil, Body: body},
		"two args":         {Args: []string{nonce, nonce}, Body: body},
		"nonce padded":     {Args: []string{nonce + "="}, Body: body},
		"nonce not base64": {Args: []string{"!" + nonce[1:]}, Body: body},
		"nonce too short":  {Args: []string{nonce[:30]}, Body: body},
		"nonce too long":   {Args: []string{nonce + "AAAA"}, Body: body},
		"body too short":   {Args: []string{nonce}, Body: body[1:]},
		"body too long":    {Args: []string{nonce}, Body: append(body, 0)},
	} {
		s.Type = PairStanzaType
		if _, err := parsePairStanza(s); !errors.Is(err, errBadPairStanza) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPairIdentityIgnoresOtherStanzas(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	id := pairIdentity{self: bob, from: alice.PeerID()}
	_, err := id.Unwrap([]*age.Stanza{{Type: "X25519", Args: []string{"x"}, Body: nil}})
	if !errors.Is(err, age.ErrIncorrectIdentity) {
		t.Fatalf("X25519 stanza: %v", err)
	}
	if bob.pairs.Len() != 0 {
		t.Fatal("a wrap key was derived without a hyphae-pair stanza")
	}
}

func TestPairConcurrentUse(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			ct, err := alice.EncryptTo(bob.PeerID(), []byte("x"))
			if err == nil {
				_, err = bob.DecryptFrom(alice.PeerID(), ct)
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}
