package envelope

import (
	"testing"
)

// BenchmarkSealOpen measures one message end to end: seal (age-encrypt and
// sign), marshal, check (decode and verify) and open (decrypt), 1 KiB payload.
func BenchmarkSealOpen(b *testing.B) {
	alice, bob := testIdentity(b, 1), testIdentity(b, 2)
	v := &Verifier{Self: bob}
	pt := make([]byte, 1024)
	b.SetBytes(int64(len(pt)))
	b.ReportAllocs()
	for b.Loop() {
		env, err := Seal(alice, bob.PeerID(), TypeJob, 1, 0, pt)
		if err != nil {
			b.Fatal(err)
		}
		got, err := v.Check(env.Marshal(), alice.PeerID())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := v.Open(got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck measures the validator's part alone: decode and verify.
func BenchmarkCheck(b *testing.B) {
	alice, bob := testIdentity(b, 1), testIdentity(b, 2)
	env, err := Seal(alice, bob.PeerID(), TypeJob, 1, 0, make([]byte, 1024))
	if err != nil {
		b.Fatal(err)
	}
	wire := env.Marshal()
	v := &Verifier{Self: bob}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Check(wire, alice.PeerID()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSeal measures the sender's part: encrypt, sign and marshal.
func BenchmarkSeal(b *testing.B) {
	alice, bob := testIdentity(b, 1), testIdentity(b, 2)
	pt := make([]byte, 1024)
	b.ReportAllocs()
	for b.Loop() {
		env, err := Seal(alice, bob.PeerID(), TypeJob, 1, 0, pt)
		if err != nil {
			b.Fatal(err)
		}
		_ = env.Marshal()
	}
}

// BenchmarkOpen measures decryption of a checked envelope.
func BenchmarkOpen(b *testing.B) {
	alice, bob := testIdentity(b, 1), testIdentity(b, 2)
	env, err := Seal(alice, bob.PeerID(), TypeJob, 1, 0, make([]byte, 1024))
	if err != nil {
		b.Fatal(err)
	}
	v := &Verifier{Self: bob}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Open(env); err != nil {
			b.Fatal(err)
		}
	}
}
