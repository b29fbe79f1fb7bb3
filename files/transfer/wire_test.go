package transfer

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

func TestRequestRoundTrip(t *testing.T) {
	r := Request{SHA256: sha256.Sum256([]byte("x")), First: 7, JobRef: "ctx/job-1"}
	b, err := encodeRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readRequest(bytes.NewReader(b))
	if err != nil || got != r {
		t.Fatalf("%+v, %v", got, err)
	}
	if _, err := encodeRequest(Request{JobRef: string(make([]byte, MaxJobRef+1))}); !errors.Is(err, files.ErrProtocol) {
		t.Fatalf("long ref: %v", err)
	}
	b[3] = 2
	if _, err := readRequest(bytes.NewReader(b)); !errors.Is(err, files.ErrProtocol) {
		t.Fatalf("version 2: %v", err)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, h := range []Header{
		{Status: StatusOK, Size: 2*files.MinChunkSize + 1, ChunkSize: files.MinChunkSize, Chunks: make([][32]byte, 3)},
		{Status: StatusOK, Size: 0, ChunkSize: files.DefaultChunkSize, Chunks: [][32]byte{}},
		{Status: StatusRefused, Reason: "no role"},
		{Status: StatusBusy, Reason: ""},
	} {
		got, err := readHeader(bytes.NewReader(encodeHeader(h)), files.MaxChunks)
		if err != nil || got.Status != h.Status || got.Reason != h.Reason || got.Size != h.Size || len(got.Chunks) != len(h.Chunks) {
			t.Fatalf("%+v: got %+v, %v", h, got, err)
		}
	}
	long := encodeHeader(Header{Status: StatusRefused, Reason: string(bytes.Repeat([]byte("r"), 1000))})
	if got, _ := readHeader(bytes.NewReader(long), 0); len(got.Reason) != MaxReason {
		t.Fatalf("reason cut to %d", len(got.Reason))
	}
	many := encodeHeader(Header{Status: StatusOK, Size: 5 * files.MinChunkSize, ChunkSize: files.MinChunkSize, Chunks: make([][32]byte, 5)})
	if _, err := readHeader(bytes.NewReader(many), 4); !errors.Is(err, files.ErrProtocol) {
		t.Fatalf("more chunks than the entry's: %v", err)
	}
}

// FuzzReadRequest: the request decoder never panics, reads no more than
// the request, and what it accepts encodes back to the same bytes.
func FuzzReadRequest(f *testing.F) {
	ok, _ := encodeRequest(Request{SHA256: sha256.Sum256(nil), First: 3, JobRef: "j"})
	f.Add(ok)
	f.Add(append(ok, 0xff, 0xff))
	f.Add([]byte("hyf\x01"))
	f.Add(append([]byte("hyf\x01"), make([]byte, 38)...))
	f.Add(append(append([]byte("hyf\x01"), make([]byte, 36)...), 0xff, 0xff))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := bytes.NewReader(b)
		r, err := readRequest(rd)
		if err != nil {
			return
		}
		enc, err := encodeRequest(r)
		if err != nil {
			t.Fatalf("accepted %+v, which does not encode: %v", r, err)
		}
		if used := len(b) - rd.Len(); !bytes.Equal(enc, b[:used]) {
			t.Fatalf("decoded %x as %+v, which encodes as %x", b[:used], r, enc)
		}
	})
}

// FuzzReadHeader: the header decoder never panics, allocates no more
// chunks than allowed, and what it accepts encodes back to its bytes.
func FuzzReadHeader(f *testing.F) {
	f.Add(encodeHeader(Header{Status: StatusOK, Size: files.MinChunkSize + 1, ChunkSize: files.MinChunkSize, Chunks: make([][32]byte, 2)}))
	f.Add(encodeHeader(Header{Status: StatusOK, Size: 0, ChunkSize: files.MinChunkSize}))
	f.Add(encodeHeader(Header{Status: StatusRefused, Reason: "no role in the producer's context"}))
	f.Add(encodeHeader(Header{Status: StatusNotFound, Reason: ""}))
	f.Add([]byte("hyf\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x00\x10\x00"))
	f.Add([]byte("hyf\x01\x09"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := bytes.NewReader(b)
		h, err := readHeader(rd, 64)
		if err != nil {
			return
		}
		if len(h.Chunks) > 64 {
			t.Fatalf("%d chunks past the bound", len(h.Chunks))
		}
		if used := len(b) - rd.Len(); !bytes.Equal(encodeHeader(h), b[:used]) {
			t.Fatalf("decoded %x as %+v, which encodes differently", b[:used], h)
		}
	})
}
