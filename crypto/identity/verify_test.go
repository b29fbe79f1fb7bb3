package identity

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"math/big"
	"slices"
	"testing"

	"filippo.io/edwards25519"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// peerOf is the peer ID carrying the 32 bytes pub as its ed25519 key,
// whether or not they are a point (peer IDs do not check).
func peerOf(t testing.TB, pub []byte) peer.ID {
	t.Helper()
	k, err := crypto.UnmarshalEd25519PublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPublicKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// agrees fails t unless Verify accepts exactly when crypto/ed25519 does.
func agrees(t testing.TB, pub, msg, sig []byte) bool {
	t.Helper()
	want := ed25519.Verify(pub, msg, sig)
	got := Verify(peerOf(t, pub), msg, sig) == nil
	if got != want {
		t.Errorf("pub %x msg %x sig %x: Verify says %v, crypto/ed25519 %v", pub, msg, sig, got, want)
	}
	return got
}

// edge cases of ed25519 on which implementations differ: a small-order
// key with the identity as R and S = 0 (crypto/ed25519 accepts it), a
// non-canonical S (S + ℓ; refused), a key with a small-order component
// (refused by the cofactorless check), a key that is no point.
func edgeCases(t testing.TB) (pubs, msgs, sigs [][]byte) {
	pubs = append(pubs, identityPoint())
	msgs = append(msgs, []byte("small order"))
	sigs = append(sigs, append(identityPoint(), make([]byte, 32)...))

	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	msg := []byte("non-canonical s")
	sig := ed25519.Sign(priv, msg)
	l, _ := new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)
	s := new(big.Int).SetBytes(littleEndian(sig[32:]))
	s.Add(s, l)
	high := sig[:32:32]
	pubs, msgs, sigs = append(pubs, pub), append(msgs, msg), append(sigs, append(high, littleEndian(s.FillBytes(make([]byte, 32)))...))

	pub, msg, sig = mixedOrderKey(t)
	pubs, msgs, sigs = append(pubs, pub), append(msgs, msg), append(sigs, sig)

	notPoint := bytes.Repeat([]byte{0xff}, 32)
	notPoint[31] = 0x7f
	pubs, msgs, sigs = append(pubs, notPoint), append(msgs, msg), append(sigs, sig)
	return pubs, msgs, sigs
}

// mixedOrderKey signs with a public key that has a small-order component
// (A + T, T of order 8): a cofactored verifier (ZIP-215) accepts the
// signature, crypto/ed25519's cofactorless check refuses it unless the
// challenge happens to be a multiple of 8, so a key is drawn until it is
// not.
func mixedOrderKey(t testing.TB) (pub, msg, sig []byte) {
	order8, _ := hex.DecodeString("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
	T, err := new(edwards25519.Point).SetBytes(order8)
	if err != nil {
		t.Fatal(err)
	}
	msg = []byte("mixed order")
	for {
		seed := make([]byte, 32)
		rand.Read(seed)
		h := sha512.Sum512(seed)
		a, _ := new(edwards25519.Scalar).SetBytesWithClamping(h[:32])
		A := new(edwards25519.Point).Add(new(edwards25519.Point).ScalarBaseMult(a), T)
		rb := make([]byte, 64)
		rand.Read(rb)
		r, _ := new(edwards25519.Scalar).SetUniformBytes(rb)
		R := new(edwards25519.Point).ScalarBaseMult(r)
		kh := sha512.New()
		kh.Write(R.Bytes())
		kh.Write(A.Bytes())
		kh.Write(msg)
		k, _ := new(edwards25519.Scalar).SetUniformBytes(kh.Sum(nil))
		S := new(edwards25519.Scalar).MultiplyAdd(k, a, r)
		pub, sig = A.Bytes(), append(R.Bytes(), S.Bytes()...)
		if !ed25519.Verify(pub, msg, sig) {
			return pub, msg, sig
		}
	}
}

// Verify, on curve25519-voi, accepts exactly what crypto/ed25519 accepts:
// genuine signatures, every one-bit change of a signature or message, and
// the edge cases where implementations differ.
func TestVerifyAgreesWithStdlib(t *testing.T) {
	for range 20 {
		pub, priv, _ := ed25519.GenerateKey(rand.Reader)
		msg := make([]byte, 200)
		rand.Read(msg)
		sig := ed25519.Sign(priv, msg)
		if !agrees(t, pub, msg, sig) {
			t.Fatal("a genuine signature refused")
		}
		for bit := range 8 * len(sig) {
			bad := bytes.Clone(sig)
			bad[bit/8] ^= 1 << (bit % 8)
			agrees(t, pub, msg, bad)
		}
		for bit := range 8 * 16 {
			bad := bytes.Clone(msg)
			bad[bit/8] ^= 1 << (bit % 8)
			agrees(t, pub, bad, sig)
		}
	}
	pubs, msgs, sigs := edgeCases(t)
	for i := range pubs {
		agrees(t, pubs[i], msgs[i], sigs[i])
	}
	if !ed25519.Verify(pubs[0], msgs[0], sigs[0]) {
		t.Fatal("the small-order case no longer tests what it says")
	}
}

// FuzzVerifyAgreesWithStdlib: for any key, message and signature, Verify
// and crypto/ed25519 give the same verdict.
func FuzzVerifyAgreesWithStdlib(f *testing.F) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	f.Add([]byte(pub), []byte("fuzz"), ed25519.Sign(priv, []byte("fuzz")))
	pubs, msgs, sigs := edgeCases(f)
	for i := range pubs {
		f.Add(pubs[i], msgs[i], sigs[i])
	}
	f.Fuzz(func(t *testing.T, pub, msg, sig []byte) {
		if len(pub) != ed25519.PublicKeySize {
			return
		}
		agrees(t, pub, msg, sig)
	})
}

// Identity.Sign, on curve25519-voi, makes the very signature crypto/ed25519
// makes (Ed25519 is deterministic).
func TestSignMatchesStdlib(t *testing.T) {
	for n := range 50 {
		id := seeded(t, byte(n))
		msg := make([]byte, n*37)
		rand.Read(msg)
		got, err := id.Sign(msg)
		if err != nil {
			t.Fatal(err)
		}
		if want := ed25519.Sign(id.ed, msg); !bytes.Equal(got, want) {
			t.Fatalf("key %d, %d-byte message: signature %x, crypto/ed25519 %x", n, len(msg), got, want)
		}
	}
}

// identityPoint is the encoding of the curve's identity, a small-order
// point.
func identityPoint() []byte { return append([]byte{1}, make([]byte, 31)...) }

// littleEndian is b reversed (ed25519 scalars are little-endian, big.Int
// big-endian).
func littleEndian(b []byte) []byte {
	r := slices.Clone(b)
	slices.Reverse(r)
	return r
}
