package envelope

import (
	"bytes"
	"testing"

	"github.com/hyphae-run/hyphae/crypto/identity"
)

// checkOpen runs Check (with the envelope's sender as author) and Open.
func checkOpen(t *testing.T, v *Verifier, env *Envelope) ([]byte, error) {
	t.Helper()
	checked, err := v.Check(env.Marshal(), env.From)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return v.Open(checked)
}

func TestPayloadIsPairStanza(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealAt(t, alice, bob, TypeJob, []byte("x"))
	if !bytes.Contains(env.Payload, []byte("\n-> "+identity.PairStanzaType+" ")) {
		t.Fatalf("payload header:\n%q", env.Payload)
	}
}

// SealX25519 (bus.plain) seals with age's X25519 stanza, and the same
// Verifier opens it: agents on either path understand each other.
func TestSealX25519OpensAlike(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env, err := SealX25519(alice, bob.PeerID(), TypeResult, 7, 2, []byte("plain"))
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Restamp(alice, fixedNow); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(env.Payload, []byte("\n-> X25519 ")) || bytes.Contains(env.Payload, []byte(identity.PairStanzaType)) {
		t.Fatalf("payload header:\n%q", env.Payload)
	}
	if pt, err := checkOpen(t, verifierFor(bob), env); err != nil || string(pt) != "plain" {
		t.Fatalf("Open = %q, %v", pt, err)
	}
}

// TestOpenSenderBound: another key re-signing alice's payload as its own
// passes Check (the signature is good) but the payload does not open,
// because its wrap key depends on the sender.
func TestOpenSenderBound(t *testing.T) {
	alice, bob, eve := testIdentity(t, 1), testIdentity(t, 2), testIdentity(t, 3)
	env := sealAt(t, alice, bob, TypeJob, []byte("from alice"))
	v := verifierFor(bob)
	if pt, err := checkOpen(t, v, env); err != nil || string(pt) != "from alice" {
		t.Fatalf("genuine: %q, %v", pt, err)
	}
	stolen := *env
	resign(t, &stolen, eve) // Sign sets From to eve
	if stolen.From != eve.PeerID() {
		t.Fatal("resign kept the sender")
	}
	_, err := checkOpen(t, v, &stolen)
	expectReason(t, "payload re-signed by eve", err, "decrypt")
}

// TestOpenThirdParty: an envelope for bob does not open for carol even if
// it is re-addressed to her (and re-signed by the genuine sender).
func TestOpenThirdParty(t *testing.T) {
	alice, bob, carol := testIdentity(t, 1), testIdentity(t, 2), testIdentity(t, 3)
	env := sealAt(t, alice, bob, TypeJob, []byte("for bob"))
	env.To = carol.PeerID()
	resign(t, env, alice)
	_, err := checkOpen(t, verifierFor(carol), env)
	expectReason(t, "re-addressed to carol", err, "decrypt")
}

// TestOpenPlainX25519: a payload with a standard age X25519 stanza still
// opens (plain-age senders, envelopes stored before hyphae-pair).
func TestOpenPlainX25519(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealPlainAt(t, alice, bob, TypeChat, []byte("plain"))
	if pt, err := checkOpen(t, verifierFor(bob), env); err != nil || string(pt) != "plain" {
		t.Fatalf("%q, %v", pt, err)
	}
}

// TestOpenRejectsTamperedPayload: Open authenticates the ciphertext itself,
// not only the signature: a payload edited anywhere (stanza, MAC, body) and
// re-signed by its sender does not open.
func TestOpenRejectsTamperedPayload(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealAt(t, alice, bob, TypeJob, []byte("tamper"))
	v := verifierFor(bob)
	for i := range env.Payload {
		bad := *env
		bad.Payload = bytes.Clone(env.Payload)
		bad.Payload[i] ^= 0x02
		resign(t, &bad, alice)
		_, err := checkOpen(t, v, &bad)
		expectReason(t, "tampered payload byte", err, "decrypt")
	}
}
