package files

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// Sum is what a Digester found: the whole file's sha256 and each chunk's.
type Sum struct {
	Size      int64
	SHA256    string     // hex
	ChunkSize int64      // bytes per chunk
	Chunks    [][32]byte // sha256 of each chunk, in order
}

// Root is the sum's ChunkRoot.
func (s Sum) Root() string { return ChunkRoot(s.ChunkSize, s.Chunks) }

// Entry is the sum as the entry of path with permission bits mode.
func (s Sum) Entry(path string, mode uint32) Entry {
	return Entry{Path: path, Size: s.Size, SHA256: s.SHA256, Mode: mode & 0o777, ChunkSize: s.ChunkSize, ChunkRoot: s.Root()}
}

// ChunkRoot is the hex sha256 of the chunk size (8 bytes, big-endian)
// followed by every chunk's sha256: one digest that pins the chunk list
// the sender sends before the bytes.
func ChunkRoot(chunkSize int64, chunks [][32]byte) string {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(chunkSize))
	h.Write(b[:])
	for i := range chunks {
		h.Write(chunks[i][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Digester hashes a file as it is written to it, whole and per chunk, in
// one pass. The zero Digester is not ready: use NewDigester.
type Digester struct {
	whole     hash.Hash
	chunk     hash.Hash
	chunkSize int64
	inChunk   int64 // bytes of the current chunk so far
	size      int64
	chunks    [][32]byte
}

// NewDigester returns a Digester cutting chunks of chunkSize bytes.
func NewDigester(chunkSize int64) *Digester {
	return &Digester{whole: sha256.New(), chunk: sha256.New(), chunkSize: chunkSize}
}

// Write hashes p; it never fails.
func (d *Digester) Write(p []byte) (int, error) {
	n := len(p)
	d.whole.Write(p)
	d.size += int64(n)
	for len(p) > 0 {
		take := min(int64(len(p)), d.chunkSize-d.inChunk)
		d.chunk.Write(p[:take])
		d.inChunk += take
		p = p[take:]
		if d.inChunk == d.chunkSize {
			d.endChunk()
		}
	}
	return n, nil
}

func (d *Digester) endChunk() {
	var c [32]byte
	d.chunk.Sum(c[:0])
	d.chunks = append(d.chunks, c)
	d.chunk.Reset()
	d.inChunk = 0
}

// Sum ends the last, short chunk and returns the sums; call it once.
func (d *Digester) Sum() Sum {
	if d.inChunk > 0 {
		d.endChunk()
	}
	return Sum{Size: d.size, SHA256: hex.EncodeToString(d.whole.Sum(nil)), ChunkSize: d.chunkSize, Chunks: d.chunks}
}
