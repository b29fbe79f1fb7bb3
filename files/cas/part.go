package cas

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hyphae-run/hyphae/files"
)

// Part is one download under way: the verified prefix of a blob in
// parts/<sha>.part, its count in the sidecar. Only one Part per blob is
// open at a time in a store; its files are made at the first chunk, so a
// refused or failed request leaves nothing behind.
type Part struct {
	s         *Store
	sha       string
	size      int64
	chunkSize int64
	verified  int64 // chunks
	reserved  int64 // bytes reserved against the store's bound
	f, ok     *os.File
	r         *os.File // f again, read through the page cache (ReadChunk)
	direct    bool     // f writes past the page cache (openPartFile)
	closed    bool
}

// BeginPart opens the download of blob sha (size bytes in chunks of
// chunkSize), waiting while another one of the same blob is under way.
// present reports, with a nil Part, that the blob is in the store already.
// The part's size is reserved against the store's bound; past it, after a
// prune, files.ErrStoreFull.
func (s *Store) BeginPart(ctx context.Context, sha string, size, chunkSize int64) (p *Part, present bool, err error) {
	if !files.IsDigest(sha) || size < 0 || chunkSize < files.MinChunkSize || chunkSize > files.MaxChunkSize {
		return nil, false, fmt.Errorf("cas.BeginPart: %w: %q, %d bytes, chunk %d", files.ErrBadEntry, sha, size, chunkSize)
	}
	if err := s.claim(ctx, sha); err != nil {
		return nil, false, fmt.Errorf("cas.BeginPart: %w", err)
	}
	if s.Has(sha) {
		s.unclaim(sha, 0)
		return nil, true, nil
	}
	if err := s.reserve(size); err != nil {
		s.unclaim(sha, 0)
		return nil, false, fmt.Errorf("cas.BeginPart: %w", err)
	}
	p = &Part{s: s, sha: sha, size: size, chunkSize: chunkSize, reserved: size}
	p.verified = p.readSidecar()
	return p, false, nil
}

// claim waits until no other part of sha is open, then marks one open.
func (s *Store) claim(ctx context.Context, sha string) error {
	for {
		s.mu.Lock()
		ch := s.busy[sha]
		if ch == nil {
			s.busy[sha] = make(chan struct{})
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// unclaim ends the claim on sha and gives back reserved bytes.
func (s *Store) unclaim(sha string, reserved int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved -= reserved
	close(s.busy[sha])
	delete(s.busy, sha)
}

func (s *Store) reserve(size int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used+s.reserved+size > s.opt.MaxBytes {
		s.pruneLocked()
		if s.used+s.reserved+size > s.opt.MaxBytes {
			return s.fullError(size)
		}
	}
	s.reserved += size
	return nil
}

func (p *Part) path() string { return filepath.Join(p.s.dir, "parts", p.sha+".part") }

// readSidecar returns the verified chunks the sidecar records, no more
// than the part file holds; 0 when either is missing or the chunk size
// differs.
func (p *Part) readSidecar() int64 {
	b, err := os.ReadFile(p.path() + ".ok")
	if err != nil || len(b) != 16 || int64(binary.BigEndian.Uint64(b)) != p.chunkSize {
		return 0
	}
	n := min(int64(binary.BigEndian.Uint64(b[8:])), files.ChunkCount(p.size, p.chunkSize))
	fi, err := os.Stat(p.path())
	if err != nil {
		return 0
	}
	if min(n*p.chunkSize, p.size) > fi.Size() {
		n = fi.Size() / p.chunkSize // the file is shorter than its record
	}
	return n
}

// Verified is how many chunks of the part are verified.
func (p *Part) Verified() int64 { return p.verified }

// ReadChunk reads verified chunk i into buf (at least the chunk size) and
// returns it, so that a resuming receiver can hash the prefix again.
func (p *Part) ReadChunk(i int64, buf []byte) ([]byte, error) {
	if i >= p.verified {
		return nil, fmt.Errorf("cas.ReadChunk: chunk %d not verified", i)
	}
	if err := p.open(); err != nil {
		return nil, err
	}
	if p.r == nil {
		r, err := os.Open(p.path())
		if err != nil {
			return nil, fmt.Errorf("cas.ReadChunk: %w", err)
		}
		p.r = r
	}
	n := min(p.chunkSize, p.size-i*p.chunkSize)
	if _, err := p.r.ReadAt(buf[:n], i*p.chunkSize); err != nil {
		return nil, fmt.Errorf("cas.ReadChunk: %w", err)
	}
	return buf[:n], nil
}

// WriteChunk writes chunk i, which the caller verified, and records it:
// i must be the next one after the verified prefix.
func (p *Part) WriteChunk(i int64, b []byte) error {
	if i != p.verified {
		return fmt.Errorf("cas.WriteChunk: chunk %d, expected %d", i, p.verified)
	}
	if err := p.open(); err != nil {
		return err
	}
	if err := p.writeAt(b, i*p.chunkSize); err != nil {
		return fmt.Errorf("cas.WriteChunk: %w", err)
	}
	p.verified = i + 1
	if !p.direct && p.verified%writebackChunks == 0 {
		span := writebackChunks * p.chunkSize
		startWriteback(p.f, p.verified*p.chunkSize-span, span)
	}
	return p.writeSidecar()
}

// writeAt writes b at off: past the page cache when the part's file is
// open so and b suits it (a ChunkBuffer, not the last short chunk),
// through it otherwise, from then on.
func (p *Part) writeAt(b []byte, off int64) error {
	if p.direct && !suitsDirect(b, off) {
		if err := endDirect(p.f); err != nil {
			return err
		}
		p.direct = false
	}
	_, err := p.f.WriteAt(b, off)
	if err != nil && p.direct && errors.Is(err, syscall.EINVAL) {
		// the file system took O_DIRECT at open and refuses it now
		if err := endDirect(p.f); err != nil {
			return err
		}
		p.direct = false
		_, err = p.f.WriteAt(b, off)
	}
	return err
}

// writebackChunks is how many chunks a part writes between two starts of
// writeback (8 MiB at the default chunk size).
const writebackChunks = 8

// Rewind forgets verified chunks from k on (a prefix that no longer
// hashes right).
func (p *Part) Rewind(k int64) error {
	if k >= p.verified {
		return nil
	}
	p.verified = k
	if err := p.open(); err != nil {
		return err
	}
	if err := p.f.Truncate(k * p.chunkSize); err != nil {
		return fmt.Errorf("cas.Rewind: %w", err)
	}
	return p.writeSidecar()
}

func (p *Part) writeSidecar() error {
	if p.ok == nil {
		return nil // a part of one chunk: none
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:], uint64(p.chunkSize))
	binary.BigEndian.PutUint64(b[8:], uint64(p.verified))
	if _, err := p.ok.WriteAt(b[:], 0); err != nil {
		return fmt.Errorf("cas: part sidecar: %w", err)
	}
	return nil
}

// open makes or opens the part's two files.
func (p *Part) open() error {
	if p.f != nil {
		return nil
	}
	f, direct, err := openPartFile(p.path(), p.size >= directMin)
	if err != nil {
		return fmt.Errorf("cas: part: %w", err)
	}
	p.f, p.direct = f, direct
	if files.ChunkCount(p.size, p.chunkSize) <= 1 {
		return nil // no prefix short of the whole to record
	}
	ok, err := os.OpenFile(p.path()+".ok", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		_ = f.Close()
		p.f = nil
		return fmt.Errorf("cas: part sidecar: %w", err)
	}
	p.ok = ok
	return nil
}

// directMin is the smallest part written past the page cache: below it
// the writes are too few for it to matter.
const directMin = 256 << 10

// Commit syncs the whole part, whose sum the caller checked against the
// entry, names it as the blob and holds it for jobRef. The Part is closed.
func (p *Part) Commit(jobRef string, sum files.Sum) error {
	if p.closed {
		return fmt.Errorf("cas.Commit: part closed")
	}
	if sum.SHA256 != p.sha || sum.Size != p.size || p.verified != files.ChunkCount(p.size, p.chunkSize) {
		return fmt.Errorf("cas.Commit: %w: part of %s incomplete or another blob", files.ErrCorrupt, p.sha)
	}
	if err := p.open(); err != nil { // an empty file has no chunk to open it
		return err
	}
	err := p.f.Sync()
	if cerr := p.closeFiles(); err == nil {
		err = cerr
	}
	if err == nil {
		err = p.s.commit(p.path(), sum, jobRef, true)
		p.reserved = 0 // commit gave it back, whatever happened
	}
	if err == nil {
		_ = os.Remove(p.path() + ".ok")
	}
	p.Close()
	if err != nil {
		return fmt.Errorf("cas.Commit: %w", err)
	}
	return nil
}

// Discard removes the part: its bytes will not do.
func (p *Part) Discard() {
	_ = p.closeFiles()
	_ = os.Remove(p.path())
	_ = os.Remove(p.path() + ".ok")
	p.Close()
}

// Close ends the download, keeping the part for a later resume; it is
// safe after Commit or Discard and twice.
func (p *Part) Close() {
	if p.closed {
		return
	}
	p.closed = true
	_ = p.closeFiles()
	p.s.unclaim(p.sha, p.reserved)
}

func (p *Part) closeFiles() error {
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	if p.ok != nil {
		if cerr := p.ok.Close(); err == nil {
			err = cerr
		}
	}
	if p.r != nil {
		_ = p.r.Close()
	}
	p.f, p.ok, p.r = nil, nil, nil
	return err
}
