package cas

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/files"
)

// Hold records that jobRef holds the blob sha (Put and Part.Commit do it
// for their job; a job that finds the blob there already calls Hold).
func (s *Store) Hold(jobRef, sha string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.holdLocked(jobRef, sha); err != nil {
		return fmt.Errorf("cas.Hold: %w", err)
	}
	return nil
}

func (s *Store) holdLocked(jobRef, sha string) error {
	if jobRef == "" || !files.IsDigest(sha) {
		return fmt.Errorf("%w: job ref %q, blob %q", files.ErrBadEntry, jobRef, sha)
	}
	f, err := os.OpenFile(s.refPath(jobRef), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(sha + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Release drops every blob jobRef holds; Prune then removes those no other
// job holds.
func (s *Store) Release(jobRef string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.refPath(jobRef)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("cas.Release: %w", err)
	}
	return nil
}

func (s *Store) refPath(jobRef string) string {
	h := sha256.Sum256([]byte(jobRef))
	return filepath.Join(s.dir, "refs", hex.EncodeToString(h[:16]))
}

// Pruned is what one Prune removed.
type Pruned struct {
	Blobs, Parts int
	Bytes        int64
}

// Prune removes the blobs no job holds and the parts not under way and
// untouched for Options.PartMaxAge.
func (s *Store) Prune() (Pruned, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.pruneLocked()
	if err != nil {
		return p, fmt.Errorf("cas.Prune: %w", err)
	}
	return p, nil
}

func (s *Store) pruneLocked() (Pruned, error) {
	var p Pruned
	held, err := s.heldLocked()
	if err != nil {
		return p, err
	}
	err = filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !isBlobName(d.Name()) || held[d.Name()] {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := os.Remove(path); err != nil {
			return err
		}
		_ = os.Remove(path + ".chunks")
		s.used -= fi.Size()
		p.Blobs++
		p.Bytes += fi.Size()
		return nil
	})
	if err != nil {
		return p, err
	}
	p.Parts, err = s.pruneParts()
	if p.Blobs > 0 || p.Parts > 0 {
		s.opt.Log.Info("files: pruned", "blobs", p.Blobs, "bytes", p.Bytes, "parts", p.Parts)
	}
	return p, err
}

// heldLocked reads every job's references.
func (s *Store) heldLocked() (map[string]bool, error) {
	held := map[string]bool{}
	ents, err := os.ReadDir(filepath.Join(s.dir, "refs"))
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		f, err := os.Open(filepath.Join(s.dir, "refs", e.Name()))
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); files.IsDigest(line) {
				held[line] = true
			}
		}
		err = sc.Err()
		_ = f.Close()
		if err != nil {
			return nil, err
		}
	}
	return held, nil
}

// pruneParts removes parts not under way and older than PartMaxAge.
func (s *Store) pruneParts() (int, error) {
	dir := filepath.Join(s.dir, "parts")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range ents {
		sha, ok := strings.CutSuffix(e.Name(), ".part")
		if !ok || s.busy[sha] != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) < s.opt.PartMaxAge {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
		_ = os.Remove(filepath.Join(dir, e.Name()+".ok"))
		n++
	}
	return n, nil
}
