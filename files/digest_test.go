package files_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/hyphae-run/hyphae/files"
)

// A Digester's sums do not depend on how the bytes are cut into writes.
func TestDigesterChunks(t *testing.T) {
	const cs = files.MinChunkSize
	data := bytes.Repeat([]byte("0123456789abcdef"), (2*cs+100)/16+1)[:2*cs+100]
	for _, step := range []int{1, 7, cs, cs + 1, len(data)} {
		d := files.NewDigester(cs)
		for i := 0; i < len(data); i += step {
			d.Write(data[i:min(i+step, len(data))])
		}
		s := d.Sum()
		whole := sha256.Sum256(data)
		if s.Size != int64(len(data)) || s.SHA256 != hex.EncodeToString(whole[:]) || len(s.Chunks) != 3 {
			t.Fatalf("step %d: %+v", step, s)
		}
		if s.Chunks[2] != sha256.Sum256(data[2*cs:]) || s.Chunks[0] != sha256.Sum256(data[:cs]) {
			t.Fatalf("step %d: chunk hashes wrong", step)
		}
	}
}

func TestDigesterEmpty(t *testing.T) {
	s := files.NewDigester(files.DefaultChunkSize).Sum()
	if s.Size != 0 || len(s.Chunks) != 0 || s.SHA256 != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("%+v", s)
	}
	if e := s.Entry("x", 0o7755); e.Mode != 0o755 || e.Check() != nil {
		t.Fatalf("%+v: %v", e, e.Check())
	}
}
