package envelope

import (
	"bytes"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/libp2p/go-libp2p/core/crypto"
)

// fixedNow is the clock of every test Verifier, so that stored fuzz seeds
// stay inside the skew window forever.
var fixedNow = time.UnixMilli(1_767_225_600_000).UTC() // 2026-01-01T00:00:00Z

// testIdentity returns a deterministic identity; the same seed byte always
// gives the same key.
func testIdentity(t testing.TB, seed byte) *identity.Identity {
	t.Helper()
	k, err := crypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize)))
	if err != nil {
		t.Fatal(err)
	}
	id, err := identity.FromPrivKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// sealAt seals a message from → to stamped at fixedNow.
func sealAt(t testing.TB, from, to *identity.Identity, typ Type, pt []byte) *Envelope {
	t.Helper()
	env, err := Seal(from, to.PeerID(), typ, 7, 2, pt)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Restamp(from, fixedNow); err != nil {
		t.Fatal(err)
	}
	return env
}

func verifierFor(self *identity.Identity) *Verifier {
	return &Verifier{Self: self, Now: func() time.Time { return fixedNow }}
}

// resign recomputes the signature after a test has edited fields, keeping
// the timestamp.
func resign(t testing.TB, env *Envelope, id *identity.Identity) {
	t.Helper()
	if err := env.Restamp(id, env.Time); err != nil {
		t.Fatal(err)
	}
}

// sealPlainAt is sealAt with a plain age X25519 payload (identity.Encrypt),
// as written before hyphae-pair stanzas or by a plain-age sender.
func sealPlainAt(t testing.TB, from, to *identity.Identity, typ Type, pt []byte) *Envelope {
	t.Helper()
	env := sealAt(t, from, to, typ, nil)
	ct, err := identity.Encrypt(to.PeerID(), pt)
	if err != nil {
		t.Fatal(err)
	}
	env.Payload = ct
	resign(t, env, from)
	return env
}
