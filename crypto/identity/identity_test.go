package identity

import (
	"bytes"
	"crypto/ecdh"
	"crypto/ed25519"
	"crypto/sha512"
	"errors"
	"io"
	"testing"

	"filippo.io/age"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func mustGenerate(t testing.TB) *Identity {
	t.Helper()
	id, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSignVerify(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	msg := []byte("hyphae/test\x00hello")
	sig, err := alice.Sign(msg)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(alice.PeerID(), msg, sig); err != nil {
		t.Fatalf("good signature: %v", err)
	}
	tampered := bytes.Clone(msg)
	tampered[len(tampered)-1] ^= 1
	if err := Verify(alice.PeerID(), tampered, sig); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered msg: %v", err)
	}
	if err := Verify(bob.PeerID(), msg, sig); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("wrong key: %v", err)
	}
	if err := Verify(alice.PeerID(), msg, sig[:10]); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("short sig: %v", err)
	}
}

func TestVerifyUnsupportedPeerIDs(t *testing.T) {
	k, _, _ := crypto.GenerateSecp256k1Key(nil)
	secp, _ := peer.IDFromPrivateKey(k)
	for name, p := range map[string]peer.ID{"empty": "", "garbage": "xyz", "secp256k1": secp} {
		if err := Verify(p, []byte("m"), make([]byte, 64)); !errors.Is(err, ErrUnsupportedKey) {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := RecipientFor(p); !errors.Is(err, ErrUnsupportedKey) {
			t.Errorf("RecipientFor %s: %v", name, err)
		}
	}
}

func TestFromPrivKeyRejectsOtherTypes(t *testing.T) {
	k, _, _ := crypto.GenerateSecp256k1Key(nil)
	if _, err := FromPrivKey(k); !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("secp256k1: %v", err)
	}
	if _, err := FromPrivKey(nil); !errors.Is(err, ErrUnsupportedKey) {
		t.Fatalf("nil: %v", err)
	}
}

func TestEncryptDecrypt(t *testing.T) {
	alice, bob, eve := mustGenerate(t), mustGenerate(t), mustGenerate(t)
	msg := []byte("run this job please")
	ct, err := alice.Encrypt(bob.PeerID(), msg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bob.Decrypt(ct)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("Decrypt: %q, %v", got, err)
	}
	if _, err := eve.Decrypt(ct); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("wrong recipient: %v", err)
	}
	for _, i := range []int{0, 30, len(ct) / 2, len(ct) - 1} {
		bad := bytes.Clone(ct)
		bad[i] ^= 0x40
		if _, err := bob.Decrypt(bad); !errors.Is(err, ErrDecrypt) {
			t.Fatalf("tampered byte %d: %v", i, err)
		}
	}
	if _, err := bob.Decrypt(ct[:len(ct)-1]); !errors.Is(err, ErrDecrypt) {
		t.Fatalf("truncated: %v", err)
	}
	empty, err := Encrypt(bob.PeerID(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bob.Decrypt(empty); err != nil || len(got) != 0 {
		t.Fatalf("empty: %q, %v", got, err)
	}
}

// TestAgeInterop checks that the derived recipient string is a standard age
// X25519 recipient that matches the peer-ID derived one, and that plain age
// can encrypt to it.
func TestAgeInterop(t *testing.T) {
	bob := mustGenerate(t)
	r, err := age.ParseX25519Recipient(bob.AgeRecipient())
	if err != nil {
		t.Fatalf("AgeRecipient %q: %v", bob.AgeRecipient(), err)
	}
	fromPeer, err := RecipientFor(bob.PeerID())
	if err != nil {
		t.Fatal(err)
	}
	if got := fromPeer.(*age.X25519Recipient).String(); got != bob.AgeRecipient() {
		t.Fatalf("peer-ID recipient %s != key recipient %s", got, bob.AgeRecipient())
	}
	var buf bytes.Buffer
	w, _ := age.Encrypt(&buf, r)
	_, _ = w.Write([]byte("from the age tool"))
	_ = w.Close()
	got, err := bob.Decrypt(buf.Bytes())
	if err != nil || string(got) != "from the age tool" {
		t.Fatalf("%q, %v", got, err)
	}
	rd, err := age.Decrypt(bytes.NewReader(buf.Bytes()), bob.AgeIdentity())
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(rd); string(b) != "from the age tool" {
		t.Fatalf("AgeIdentity decrypt: %q", b)
	}
}

// TestKnownVector pins the derivation: a fixed seed must always give the
// same peer ID and age recipient, or stored keys would change meaning.
func TestKnownVector(t *testing.T) {
	seed := bytes.Repeat([]byte{7}, ed25519.SeedSize)
	k, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	id, err := FromPrivKey(k)
	if err != nil {
		t.Fatal(err)
	}
	const wantPeer = "12D3KooWRawPbxPtP1eZaJpumGnyWX2DcUyd3RQnydr3eAto4Az7"
	const wantAge = "age1wcwc3myrqsfer807n4x364h30ejneryegzpd7kcn0wg2ptnwma6qfgnx5h"
	if id.PeerID().String() != wantPeer || id.AgeRecipient() != wantAge {
		t.Fatalf("peer %s age %s", id.PeerID(), id.AgeRecipient())
	}
	// Independently: X25519 public key of scalar SHA-512(seed)[:32].
	h := sha512.Sum512(seed)
	x, err := ecdh.X25519().NewPrivateKey(h[:32])
	if err != nil {
		t.Fatal(err)
	}
	if got := bech32Encode("age", x.PublicKey().Bytes()); got != wantAge {
		t.Fatalf("ecdh-derived recipient %s", got)
	}
}

func TestBech32KnownVector(t *testing.T) {
	// BIP 173 test vector: hrp "a", empty data.
	if got := bech32Encode("a", nil); got != "a12uel5l" {
		t.Fatalf("got %s", got)
	}
	if got := bech32Encode("A", nil); got != "A12UEL5L" {
		t.Fatalf("got %s", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	alice, bob := mustGenerate(t), mustGenerate(t)
	done := make(chan error, 8)
	for range 8 {
		go func() {
			ct, err := alice.Encrypt(bob.PeerID(), []byte("x"))
			if err == nil {
				_, err = bob.Decrypt(ct)
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
