package envelope

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// expectReason asserts that err is a rejection with the given Reason.
func expectReason(t *testing.T, what string, err error, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: accepted, want %s", what, reason)
	}
	if got := Reason(err); got != reason {
		t.Fatalf("%s: reason %q (%v), want %q", what, got, err, reason)
	}
}

func TestCheckRejectsEveryFlippedByte(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	b := sealAt(t, alice, bob, TypeJob, []byte("payload")).Marshal()
	v := verifierFor(bob)
	for i := range b {
		bad := bytes.Clone(b)
		bad[i] ^= 0x01
		if _, err := v.Check(bad, alice.PeerID()); err == nil {
			t.Fatalf("flipped byte %d accepted", i)
		}
	}
}

func TestCheckRejections(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	v := verifierFor(bob)
	env := sealAt(t, alice, bob, TypeJob, []byte("payload"))
	good := env.Marshal()
	if _, err := v.Check(good, alice.PeerID()); err != nil {
		t.Fatalf("good envelope: %v", err)
	}
	payloadByte := len(good) - 1 - SigSize - 5 // last ciphertext byte
	headerByte := 20                           // inside the context id
	for _, tc := range []struct {
		name, reason string
		mutate       func([]byte) []byte
	}{
		{"tampered payload byte", "bad_signature", flip(payloadByte)},
		{"tampered header byte", "bad_signature", flip(headerByte)},
		{"tampered signature", "bad_signature", flip(len(good) - 1)},
		{"version 0", "bad_version", set(0, 0)},
		{"version 2", "bad_version", set(0, 2)},
		{"type 0", "unknown_type", set(1, 0)},
		{"type 200", "unknown_type", set(1, 200)},
		{"trailing byte", "malformed", func(b []byte) []byte { return append(b, 0) }},
		{"empty", "malformed", func([]byte) []byte { return nil }},
		{"from length 0", "malformed", set(headerSize, 0)},
		{"from length 65", "malformed", set(headerSize, MaxPeerIDLen+1)},
		{"from not a multihash", "malformed", set(headerSize+1, 0xff)},
		{"sig length 63", "malformed", set(len(good)-1-SigSize, SigSize-1)},
		{"payload length huge", "malformed", set(headerSize+2+2*len(alice.PeerID()), 0x7f)},
	} {
		_, err := v.Check(tc.mutate(bytes.Clone(good)), alice.PeerID())
		expectReason(t, tc.name, err, tc.reason)
	}
}

func flip(i int) func([]byte) []byte {
	return func(b []byte) []byte { b[i] ^= 0x80; return b }
}

func set(i int, v byte) func([]byte) []byte {
	return func(b []byte) []byte { b[i] = v; return b }
}

func TestCheckSignerAndAuthor(t *testing.T) {
	alice, bob, eve := testIdentity(t, 1), testIdentity(t, 2), testIdentity(t, 3)
	v := verifierFor(bob)
	env := sealAt(t, alice, bob, TypeJob, []byte("x"))
	_, err := v.Check(env.Marshal(), eve.PeerID())
	expectReason(t, "author mismatch", err, "author_mismatch")
	_, err = v.Check(env.Marshal(), "")
	expectReason(t, "empty author", err, "author_mismatch")

	forged := *env
	forged.Sig, _ = eve.Sign(forged.signedBytes())
	_, err = v.Check(forged.Marshal(), alice.PeerID())
	expectReason(t, "wrong signer", err, "bad_signature")

	unknown := *env
	unknown.Type = 9
	unknown.Sig, _ = alice.Sign(unknown.signedBytes())
	_, err = v.Check(unknown.Marshal(), alice.PeerID())
	expectReason(t, "signed unknown type", err, "unknown_type")

	noDomain := *env
	noDomain.Sig, _ = alice.Sign(noDomain.signedBytes()[len(Domain):])
	_, err = v.Check(noDomain.Marshal(), alice.PeerID())
	expectReason(t, "signature without domain prefix", err, "bad_signature")
}

func TestCheckSkew(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	for _, tc := range []struct {
		offset time.Duration
		skew   time.Duration
		ok     bool
	}{
		{0, 0, true},
		{time.Minute, 0, true},
		{-time.Minute, 0, true},
		{DefaultSkew, 0, true},
		{DefaultSkew + time.Millisecond, 0, false},
		{-DefaultSkew - time.Millisecond, 0, false},
		{3 * time.Minute, 0, false},
		{-3 * time.Minute, 0, false},
		{-24 * time.Hour, 0, false},
		{11 * time.Second, 10 * time.Second, false},
		{-9 * time.Second, 10 * time.Second, true},
	} {
		env := sealAt(t, alice, bob, TypeStatus, nil)
		if err := env.Restamp(alice, fixedNow.Add(tc.offset)); err != nil {
			t.Fatal(err)
		}
		v := verifierFor(bob)
		v.Skew = tc.skew
		_, err := v.Check(env.Marshal(), alice.PeerID())
		if tc.ok && err != nil {
			t.Errorf("offset %v skew %v: %v", tc.offset, tc.skew, err)
		}
		if !tc.ok && Reason(err) != "skew" {
			t.Errorf("offset %v skew %v: got %v, want skew", tc.offset, tc.skew, err)
		}
	}
}

func TestCheckOversized(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	b := sealAt(t, alice, bob, TypeResult, []byte("result")).Marshal()
	v := verifierFor(bob)
	v.MaxSize = len(b)
	if _, err := v.Check(b, alice.PeerID()); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	v.MaxSize = len(b) - 1
	_, err := v.Check(b, alice.PeerID())
	expectReason(t, "over MaxSize", err, "oversized")
	big := sealAt(t, alice, bob, TypeResult, make([]byte, DefaultMaxSize)).Marshal()
	_, err = verifierFor(bob).Check(big, alice.PeerID())
	expectReason(t, "over DefaultMaxSize", err, "oversized")
}

func TestTruncatedAtEveryLength(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	b := sealAt(t, alice, bob, TypeJob, []byte("some payload")).Marshal()
	v := verifierFor(bob)
	for i := range len(b) {
		_, err := Unmarshal(b[:i], 0)
		expectReason(t, "Unmarshal truncated", err, "malformed")
		_, err = v.Check(b[:i], alice.PeerID())
		expectReason(t, "Check truncated", err, "malformed")
	}
}

func TestOpen(t *testing.T) {
	alice, bob, carol := testIdentity(t, 1), testIdentity(t, 2), testIdentity(t, 3)
	env := sealAt(t, alice, carol, TypeChat, []byte("hi carol"))
	v := verifierFor(bob)
	checked, err := v.Check(env.Marshal(), alice.PeerID())
	if err != nil {
		t.Fatalf("Check must not look at the recipient: %v", err)
	}
	_, err = v.Open(checked)
	expectReason(t, "wrong recipient", err, "not_for_me")
	if !errors.Is(err, ErrNotForMe) {
		t.Fatal("ErrNotForMe not matched")
	}
	if pt, err := verifierFor(carol).Open(checked); err != nil || string(pt) != "hi carol" {
		t.Fatalf("carol: %q, %v", pt, err)
	}

	// Addressed to bob, but the payload is encrypted to carol.
	misdirected := *checked
	misdirected.To = bob.PeerID()
	resign(t, &misdirected, alice)
	checked, err = v.Check(misdirected.Marshal(), alice.PeerID())
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Open(checked)
	expectReason(t, "payload for someone else", err, "decrypt")

	if _, err := (&Verifier{}).Open(checked); err == nil || Reason(err) != "internal" {
		t.Fatalf("Open without Self: %v", err)
	}
}

func TestVerifySignatureAtRest(t *testing.T) {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	env := sealAt(t, alice, bob, TypeJob, []byte("x"))
	if err := env.VerifySignature(); err != nil {
		t.Fatal(err)
	}
	env.Attempt++
	expectReason(t, "edited attempt", env.VerifySignature(), "bad_signature")
}
