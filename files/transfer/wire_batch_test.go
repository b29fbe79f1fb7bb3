package transfer

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

func TestBatchRoundTrip(t *testing.T) {
	b := Batch{JobRef: "ctx/job-1", Items: []Item{{SHA256: sha256.Sum256([]byte("a")), First: 0}, {SHA256: sha256.Sum256([]byte("b")), First: 9}}}
	enc, err := encodeBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	got, single, err := readAnyRequest(bytes.NewReader(enc))
	if err != nil || single || got.JobRef != b.JobRef || len(got.Items) != 2 || got.Items[1] != b.Items[1] {
		t.Fatalf("%+v, %v, %v", got, single, err)
	}
	one, _ := encodeRequest(Request{SHA256: b.Items[1].SHA256, First: 9, JobRef: "j"})
	if got, single, err := readAnyRequest(bytes.NewReader(one)); err != nil || !single || got.Items[0] != b.Items[1] {
		t.Fatalf("one-blob request as a batch: %+v, %v", got, err)
	}
	for _, bad := range []Batch{{JobRef: "j"}, {JobRef: "j", Items: make([]Item, MaxBatch+1)}, {Items: b.Items}} {
		if _, err := encodeBatch(bad); !errors.Is(err, files.ErrProtocol) {
			t.Errorf("%d items, ref %q: %v", len(bad.Items), bad.JobRef, err)
		}
	}
	if _, err := readRequest(bytes.NewReader(enc)); !errors.Is(err, files.ErrProtocol) {
		t.Errorf("a batch read as one request: %v", err)
	}
}

// FuzzReadBatch: the batch decoder never panics, allocates no more items
// than MaxBatch, reads no more than the request, and what it accepts
// encodes back to the same bytes.
func FuzzReadBatch(f *testing.F) {
	ok, _ := encodeBatch(Batch{JobRef: "j", Items: []Item{{SHA256: sha256.Sum256(nil), First: 3}, {}}})
	f.Add(ok)
	f.Add(append(ok, 0xff))
	f.Add([]byte("hyf\x02"))
	f.Add([]byte("hyf\x02\x00\x01j\xff\xff"))
	f.Add([]byte("hyf\x02\x00\x01j\x00\x00"))
	f.Add([]byte("hyf\x02\x01\x00"))
	one, _ := encodeRequest(Request{SHA256: sha256.Sum256(nil), JobRef: "j"})
	f.Add(one)
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := bytes.NewReader(b)
		r, err := readBatch(rd)
		if err != nil {
			return
		}
		if len(r.Items) > MaxBatch {
			t.Fatalf("%d items past the bound", len(r.Items))
		}
		enc, err := encodeBatch(r)
		if err != nil {
			t.Fatalf("accepted %+v, which does not encode: %v", r, err)
		}
		if used := len(b) - rd.Len(); !bytes.Equal(enc, b[:used]) {
			t.Fatalf("decoded %x as %+v, which encodes as %x", b[:used], r, enc)
		}
	})
}
