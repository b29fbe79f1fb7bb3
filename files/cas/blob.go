package cas

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hyphae-run/hyphae/files"
)

// Blob is a blob opened for serving: its file and its chunk list.
type Blob struct {
	*os.File
	Size      int64
	ChunkSize int64
	Chunks    [][32]byte
}

// OpenBlob opens the blob sha with its chunk list; files.ErrNotFound when
// it is not in the store.
func (s *Store) OpenBlob(sha string) (*Blob, error) {
	if !files.IsDigest(sha) {
		return nil, fmt.Errorf("cas.OpenBlob: %w: %q", files.ErrBadEntry, sha)
	}
	f, err := os.Open(s.Path(sha))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cas.OpenBlob %s: %w", sha, files.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cas.OpenBlob: %w", err)
	}
	b, err := s.readBlob(f, sha)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("cas.OpenBlob %s: %w", sha, err)
	}
	return b, nil
}

func (s *Store) readBlob(f *os.File, sha string) (*Blob, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(s.chunksPath(sha))
	if err != nil {
		return nil, err
	}
	cs, chunks, err := decodeChunks(raw)
	if err != nil {
		return nil, err
	}
	if int64(len(chunks)) != files.ChunkCount(fi.Size(), cs) {
		return nil, fmt.Errorf("%w: %d chunks listed for %d bytes", files.ErrCorrupt, len(chunks), fi.Size())
	}
	return &Blob{File: f, Size: fi.Size(), ChunkSize: cs, Chunks: chunks}, nil
}

// OpenFile opens the bytes of the blob sha for reading (files.Opener).
func (s *Store) OpenFile(sha string) (io.ReadCloser, error) {
	if !files.IsDigest(sha) {
		return nil, fmt.Errorf("cas.OpenFile: %w: %q", files.ErrBadEntry, sha)
	}
	f, err := os.Open(s.Path(sha))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cas.OpenFile %s: %w", sha, files.ErrNotFound)
	}
	return f, err
}

func encodeChunks(chunkSize int64, chunks [][32]byte) []byte {
	b := make([]byte, 8, 8+32*len(chunks))
	binary.BigEndian.PutUint64(b, uint64(chunkSize))
	for i := range chunks {
		b = append(b, chunks[i][:]...)
	}
	return b
}

func decodeChunks(b []byte) (int64, [][32]byte, error) {
	if len(b) < 8 || (len(b)-8)%32 != 0 {
		return 0, nil, fmt.Errorf("%w: chunk list of %d bytes", files.ErrCorrupt, len(b))
	}
	cs := int64(binary.BigEndian.Uint64(b))
	if cs < files.MinChunkSize || cs > files.MaxChunkSize {
		return 0, nil, fmt.Errorf("%w: chunk size %d", files.ErrCorrupt, cs)
	}
	chunks := make([][32]byte, (len(b)-8)/32)
	for i := range chunks {
		copy(chunks[i][:], b[8+32*i:])
	}
	return cs, chunks, nil
}
