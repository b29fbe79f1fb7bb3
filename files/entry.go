package files

import (
	"encoding/hex"
	"fmt"
)

// Chunking bounds. Every entry this version writes uses DefaultChunkSize;
// the wire carries the chunk size, so a later version may choose another
// within [MinChunkSize, MaxChunkSize].
const (
	DefaultChunkSize = 1 << 20
	MinChunkSize     = 4 << 10
	MaxChunkSize     = 4 << 20
	// MaxChunks bounds a file's chunk list (32 bytes each, held by the
	// receiver during a transfer): 256 GiB at DefaultChunkSize.
	MaxChunks = 1 << 18
)

// Entry is one file of a job's files: what `job status` shows and what a
// receiver needs to fetch and check it.
type Entry struct {
	Path      string `json:"path"`       // relative to the job's directory, slash-separated
	Size      int64  `json:"size"`       // bytes
	SHA256    string `json:"sha256"`     // hex, of the whole file; the blob's name
	Mode      uint32 `json:"mode"`       // permission bits only
	ChunkSize int64  `json:"chunk_size"` // bytes per chunk, the last one shorter
	ChunkRoot string `json:"chunk_root"` // hex: sha256(chunk size ‖ chunk hashes), see ChunkRoot
}

// Chunks is how many chunks the entry's file has (none when empty).
func (e Entry) Chunks() int64 { return ChunkCount(e.Size, e.ChunkSize) }

// ChunkCount is how many chunks of chunkSize bytes hold size bytes.
func ChunkCount(size, chunkSize int64) int64 {
	if size <= 0 || chunkSize <= 0 {
		return 0
	}
	return (size + chunkSize - 1) / chunkSize
}

// Check refuses an entry that could not have been built: a bad path, a
// negative size, a malformed digest, chunking out of bounds.
func (e Entry) Check() error {
	if err := CheckPath(e.Path); err != nil {
		return err
	}
	switch {
	case e.Size < 0:
		return fmt.Errorf("%w: %s: size %d", ErrBadEntry, e.Path, e.Size)
	case !IsDigest(e.SHA256) || !IsDigest(e.ChunkRoot):
		return fmt.Errorf("%w: %s: sha256 and chunk_root must be 64 lowercase hex digits", ErrBadEntry, e.Path)
	case e.ChunkSize < MinChunkSize || e.ChunkSize > MaxChunkSize:
		return fmt.Errorf("%w: %s: chunk size %d out of [%d, %d]", ErrBadEntry, e.Path, e.ChunkSize, MinChunkSize, MaxChunkSize)
	case e.Chunks() > MaxChunks:
		return fmt.Errorf("%w: %s: %d chunks, at most %d", ErrBadEntry, e.Path, e.Chunks(), MaxChunks)
	case e.Mode&^0o777 != 0:
		return fmt.Errorf("%w: %s: mode %o has more than permission bits", ErrBadEntry, e.Path, e.Mode)
	}
	return nil
}

// IsDigest reports whether s is a sha256 in lowercase hex.
func IsDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// DecodeDigest returns the 32 bytes of a hex sha256.
func DecodeDigest(s string) ([32]byte, error) {
	var d [32]byte
	if !IsDigest(s) {
		return d, fmt.Errorf("%w: %q is not a sha256", ErrBadEntry, s)
	}
	_, err := hex.Decode(d[:], []byte(s))
	return d, err
}
