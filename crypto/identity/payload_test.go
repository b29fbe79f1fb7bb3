package identity

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"filippo.io/age"
)

// ageOpen is the reference: age's own streaming decryption.
func ageOpen(ct []byte, ids ...age.Identity) ([]byte, error) {
	r, err := age.Decrypt(bytes.NewReader(ct), ids...)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// Files of every size around the chunk boundary open to what age opens
// them to, pairwise and plain; one-chunk ones take the short path, longer
// ones are left to age.
func TestOpenOneChunkAgreesWithAge(t *testing.T) {
	alice, bob := seeded(t, 1), seeded(t, 2)
	ids := []age.Identity{bob.ageID, pairIdentity{self: bob, from: alice.PeerID()}}
	for _, n := range []int{0, 1, 1000, chunkSize - 1, chunkSize, chunkSize + 1, 2*chunkSize + 5} {
		pt := bytes.Repeat([]byte{byte(n)}, n)
		plain, err := Encrypt(bob.PeerID(), pt)
		if err != nil {
			t.Fatal(err)
		}
		for _, ct := range [][]byte{mustEncryptTo(t, alice, bob.PeerID(), pt), plain} {
			want, err := ageOpen(ct, ids...)
			if err != nil || !bytes.Equal(want, pt) {
				t.Fatalf("age itself: %d bytes, %v", len(want), err)
			}
			got, err := decryptWith(ct, ids...)
			if err != nil || !bytes.Equal(got, pt) {
				t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
			}
			_, err = openOneChunk(ct, ids...)
			if short := !errors.Is(err, errNotOneChunk); short != (n <= chunkSize) {
				t.Errorf("%d bytes: short path taken %v (%v)", n, short, err)
			}
		}
	}
}

// Every flipped byte, every truncation and an appended byte make the short
// path fail, as they make age fail.
func TestOpenOneChunkRejectsWhatAgeRejects(t *testing.T) {
	alice, bob := seeded(t, 1), seeded(t, 2)
	ids := []age.Identity{bob.ageID, pairIdentity{self: bob, from: alice.PeerID()}}
	ct := mustEncryptTo(t, alice, bob.PeerID(), []byte("a job for bob"))
	var bad [][]byte
	for i := range ct {
		c := bytes.Clone(ct)
		c[i] ^= 0x01
		bad = append(bad, c, ct[:i])
	}
	bad = append(bad, append(bytes.Clone(ct), 0))
	for _, c := range bad {
		got, err := openOneChunk(c, ids...)
		_, ageErr := ageOpen(c, ids...)
		if err == nil || ageErr == nil {
			t.Fatalf("%d-byte variant: short path %q, %v; age %v", len(c), got, err, ageErr)
		}
	}
}

// FuzzOpenOneChunk: whatever the short path opens, age opens to the same
// plaintext; whatever age refuses, the short path refuses.
func FuzzOpenOneChunk(f *testing.F) {
	alice, bob := seeded(f, 1), seeded(f, 2)
	ids := []age.Identity{bob.ageID, pairIdentity{self: bob, from: alice.PeerID()}}
	ct := mustEncryptTo(f, alice, bob.PeerID(), []byte("fuzz one chunk"))
	empty := mustEncryptTo(f, alice, bob.PeerID(), nil)
	for _, s := range [][]byte{ct, empty, ct[:len(ct)-1], append(bytes.Clone(ct), '\n'), []byte("\n--- \n")} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c []byte) {
		got, err := openOneChunk(c, ids...)
		if errors.Is(err, errNotOneChunk) {
			return
		}
		want, ageErr := ageOpen(c, ids...)
		switch {
		case err == nil && ageErr != nil:
			t.Fatalf("short path opened what age refuses (%v)", ageErr)
		case err == nil && !bytes.Equal(got, want):
			t.Fatalf("short path opened %q, age %q", got, want)
		case err != nil && ageErr == nil:
			t.Fatalf("short path refused what age opens: %v", err)
		}
	})
}
