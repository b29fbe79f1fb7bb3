package cas

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/files"
)

// Defaults of Options.
const (
	DefaultMaxMB      = 65536
	DefaultPartMaxAge = 24 * time.Hour
)

// Options tune a Store; zero fields take their defaults.
type Options struct {
	MaxBytes   int64         // bound on the blobs and the parts under way (files.max_store_mb)
	ChunkSize  int64         // chunk size of blobs Put makes (files.DefaultChunkSize)
	PartMaxAge time.Duration // Prune removes parts untouched this long
	Log        *slog.Logger
}

// Store is a content store in one directory. Its methods are safe for
// concurrent use; one agent process owns the directory.
type Store struct {
	dir string
	opt Options

	mu       sync.Mutex
	used     int64                    // bytes of blobs; guarded by mu
	reserved int64                    // bytes of parts under way; guarded by mu
	busy     map[string]chan struct{} // blobs being fetched; guarded by mu
}

// Open opens (making it if need be) the store in dir and counts its blobs.
func Open(dir string, opt Options) (*Store, error) {
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxMB << 20
	}
	if opt.ChunkSize <= 0 {
		opt.ChunkSize = files.DefaultChunkSize
	}
	if opt.PartMaxAge <= 0 {
		opt.PartMaxAge = DefaultPartMaxAge
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: dir, opt: opt, busy: map[string]chan struct{}{}}
	for _, sub := range []string{"blobs", "parts", "refs", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("cas.Open: %w", err)
		}
	}
	if err := clearDir(filepath.Join(dir, "tmp")); err != nil {
		return nil, fmt.Errorf("cas.Open: %w", err)
	}
	used, err := s.blobBytes()
	if err != nil {
		return nil, fmt.Errorf("cas.Open: %w", err)
	}
	s.used = used
	return s, nil
}

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

// Used is how many bytes the blobs and the parts under way take.
func (s *Store) Used() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used + s.reserved
}

// Path is where the blob sha lives (whether or not it is there).
func (s *Store) Path(sha string) string {
	return filepath.Join(s.dir, "blobs", sha[:2], sha)
}

func (s *Store) chunksPath(sha string) string { return s.Path(sha) + ".chunks" }

// Has reports whether the blob sha is in the store.
func (s *Store) Has(sha string) bool {
	if !files.IsDigest(sha) {
		return false
	}
	_, err := os.Stat(s.Path(sha))
	return err == nil
}

// Put stores what r yields as a blob held for jobRef and returns its sum.
// The bytes go to a temporary file, are synced and hashed, and get their
// name only then.
func (s *Store) Put(ctx context.Context, jobRef string, r io.Reader) (files.Sum, error) {
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "tmp"), "put-*")
	if err != nil {
		return files.Sum{}, fmt.Errorf("cas.Put: %w", err)
	}
	d := files.NewDigester(s.opt.ChunkSize)
	_, err = io.CopyBuffer(io.MultiWriter(tmp, d), ctxReader{ctx, r}, make([]byte, 256<<10))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return files.Sum{}, fmt.Errorf("cas.Put: %w", err)
	}
	sum := d.Sum()
	if err := s.commit(tmp.Name(), sum, jobRef, false); err != nil {
		return files.Sum{}, fmt.Errorf("cas.Put: %w", err)
	}
	return sum, nil
}

// commit names the checked file at tmp as the blob of sum and holds it
// for jobRef. fromPart says a Part calls: it holds the claim on the blob
// and reserved its bytes. The reference is written first and the file
// synced and renamed outside the lock, so that commits of different
// blobs sync together and Prune never sees the blob unheld.
func (s *Store) commit(tmp string, sum files.Sum, jobRef string, fromPart bool) error {
	if !fromPart {
		if err := s.claim(context.Background(), sum.SHA256); err != nil {
			return err
		}
		defer s.unclaim(sum.SHA256, 0)
	}
	exists, err := s.admit(sum, jobRef, fromPart)
	if err != nil || exists {
		_ = os.Remove(tmp)
		return err
	}
	err = s.place(tmp, sum)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reserved -= sum.Size
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	s.used += sum.Size
	return nil
}

// admit holds the blob of sum for jobRef and reserves its bytes (a Part
// reserved them already), or reports that the blob is there already.
func (s *Store) admit(sum files.Sum, jobRef string, reserved bool) (exists bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !reserved {
		if s.used+s.reserved+sum.Size > s.opt.MaxBytes {
			s.pruneLocked()
		}
		if s.used+s.reserved+sum.Size > s.opt.MaxBytes {
			return false, s.fullError(sum.Size)
		}
		s.reserved += sum.Size
	}
	if err := s.holdLocked(jobRef, sum.SHA256); err != nil {
		s.reserved -= sum.Size
		return false, err
	}
	if _, err := os.Stat(s.Path(sum.SHA256)); err == nil {
		s.reserved -= sum.Size
		return true, nil
	}
	return false, nil
}

// place writes the chunk list of sum and renames tmp to the blob's name.
func (s *Store) place(tmp string, sum files.Sum) error {
	shard := filepath.Dir(s.Path(sum.SHA256))
	if err := os.MkdirAll(shard, 0o700); err != nil {
		return err
	}
	if err := writeFileSynced(s.chunksPath(sum.SHA256), encodeChunks(sum.ChunkSize, sum.Chunks)); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o444); err != nil {
		return err
	}
	if err := os.Rename(tmp, s.Path(sum.SHA256)); err != nil {
		return err
	}
	return syncDir(shard)
}

func (s *Store) fullError(size int64) error {
	return fmt.Errorf("%w: %d bytes more would pass the bound of %d MiB (%d bytes used; raise files.max_store_mb or prune jobs)",
		files.ErrStoreFull, size, s.opt.MaxBytes>>20, s.used+s.reserved)
}

// blobBytes adds up the sizes of the blobs on disk.
func (s *Store) blobBytes() (int64, error) {
	var n int64
	err := filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !files.IsDigest(d.Name()) {
			return err
		}
		fi, err := d.Info()
		if err == nil {
			n += fi.Size()
		}
		return err
	})
	return n, err
}

// ctxReader ends a copy when ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func clearDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func writeFileSynced(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// isBlobName reports whether name is a blob's file (not its chunk list).
func isBlobName(name string) bool { return files.IsDigest(name) && !strings.Contains(name, ".") }
