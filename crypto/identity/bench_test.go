package identity

import (
	"bytes"
	"io"
	"testing"

	"filippo.io/age"
)

// BenchmarkDecryptFrom opens a 1 KiB bus payload (pair stanza) as
// DecryptFrom does: oneChunk through openOneChunk (ARCHITECTURE.md's
// shortcut 11, which is not switchable: it is a decoding detail with no
// state, checked against age by TestOpenOneChunkAgreesWithAge and
// FuzzOpenOneChunk), age through age.DecryptReaderAt, the path any other
// file takes. Compare ns/op and allocs/op.
func BenchmarkDecryptFrom(b *testing.B) {
	alice, bob := seeded(b, 1), seeded(b, 2)
	ct := mustEncryptTo(b, alice, bob.PeerID(), bytes.Repeat([]byte{'x'}, 1<<10))
	ids := []age.Identity{bob.ageID, pairIdentity{self: bob, from: alice.PeerID()}}
	for _, c := range []struct {
		name string
		open func([]byte, ...age.Identity) ([]byte, error)
	}{{"oneChunk", openOneChunk}, {"age", ageReaderAt}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if pt, err := c.open(ct, ids...); err != nil || len(pt) != 1<<10 {
					b.Fatalf("%d bytes, %v", len(pt), err)
				}
			}
		})
	}
}

// ageReaderAt is decryptWith's fallback alone: age.DecryptReaderAt and one
// ReadAt of the whole plaintext.
func ageReaderAt(ct []byte, ids ...age.Identity) ([]byte, error) {
	r, size, err := age.DecryptReaderAt(bytes.NewReader(ct), int64(len(ct)), ids...)
	if err != nil {
		return nil, err
	}
	pt := make([]byte, size)
	n, err := r.ReadAt(pt, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if n != len(pt) {
		return nil, io.ErrUnexpectedEOF
	}
	return pt, nil
}
