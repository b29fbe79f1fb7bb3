package envelope

import (
	"bytes"
	"testing"
)

// fuzzSeeds returns valid envelopes (hyphae-pair payloads, and one plain
// X25519 payload) and a few mutations of them.
func fuzzSeeds(t testing.TB) [][]byte {
	alice, bob := testIdentity(t, 1), testIdentity(t, 2)
	var seeds [][]byte
	for _, typ := range []Type{TypeJob, TypeAck, TypeMail} {
		seeds = append(seeds, sealAt(t, alice, bob, typ, []byte("fuzz "+typ.String())).Marshal())
	}
	b := seeds[0]
	seeds = append(seeds,
		sealPlainAt(t, alice, bob, TypeJob, []byte("fuzz plain X25519")).Marshal(),
		b[:len(b)/2],
		append(bytes.Clone(b), 0),
		set(1, 0)(bytes.Clone(b)),
		set(headerSize, 0xff)(bytes.Clone(b)),
		flip(len(b)-1)(bytes.Clone(b)),
		[]byte{Version},
		nil,
	)
	return seeds
}

// FuzzUnmarshal: decoding never panics, and whatever decodes re-encodes to
// exactly the same bytes (the encoding is canonical).
func FuzzUnmarshal(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := Unmarshal(b, 0)
		if err != nil {
			if Reason(err) == "internal" {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if out := env.Marshal(); !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n in  %x\n out %x", b, out)
		}
		if env.Size() != len(b) {
			t.Fatalf("Size %d, len %d", env.Size(), len(b))
		}
	})
}

// FuzzCheck: checking and opening never panic; an accepted envelope came
// from the stated author and is the exact input.
func FuzzCheck(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	alice, bob := testIdentity(f, 1), testIdentity(f, 2)
	v := verifierFor(bob)
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := v.Check(b, alice.PeerID())
		if err != nil {
			if Reason(err) == "internal" {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		if env.From != alice.PeerID() || !bytes.Equal(env.Marshal(), b) {
			t.Fatalf("accepted a forgery: %x", b)
		}
		if _, err := v.Open(env); err != nil && Reason(err) != "decrypt" && Reason(err) != "not_for_me" {
			t.Fatalf("Open: %v", err)
		}
	})
}
