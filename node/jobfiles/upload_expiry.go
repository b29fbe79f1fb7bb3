package jobfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// An upload no job adopts (the CLI died between the upload and job.run,
// or the submission was refused and never said so) must not hold its
// blob for ever: each upload leaves a marker, <DataDir>/files/uploads/
// <token>, which Adopt removes; Prune (after a retention sweep removed
// jobs) and the next Upload release the uploads whose marker is older
// than UploadTTL, and their blobs go with the rest. The markers are
// files, so an upload made before a restart expires too.

// UploadTTL is how long an upload waits for the job that adopts it.
const UploadTTL = time.Hour

// uploadsDir holds one marker per upload not adopted yet.
func (s *Service) uploadsDir() string { return filepath.Join(s.cfg.DataDir, "files", "uploads") }

// markUpload records upload token as waiting for its job.
func (s *Service) markUpload(token string) error {
	if err := os.MkdirAll(s.uploadsDir(), 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.uploadsDir(), token), nil, 0o600)
}

// unmarkUpload forgets upload token's marker (adopted or released).
func (s *Service) unmarkUpload(token string) error {
	err := os.Remove(filepath.Join(s.uploadsDir(), token))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// expireUploads releases the uploads whose marker is older than ttl at
// now, and reports how many.
func (s *Service) expireUploads(now time.Time, ttl time.Duration) (int, error) {
	ents, err := os.ReadDir(s.uploadsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("jobfiles: uploads: %w", err)
	}
	n := 0
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < ttl {
			continue
		}
		if err := s.store.Release(uploadRef(e.Name())); err != nil {
			return n, fmt.Errorf("jobfiles: release upload %s: %w", e.Name(), err)
		}
		if err := s.unmarkUpload(e.Name()); err != nil {
			return n, fmt.Errorf("jobfiles: uploads: %w", err)
		}
		n++
	}
	return n, nil
}

// pruneStaleUploads releases the expired uploads and, when there were
// some, prunes the store (a new upload may need their room).
func (s *Service) pruneStaleUploads() {
	n, err := s.expireUploads(time.Now(), UploadTTL)
	if err != nil {
		s.log.Warn("files: expire uploads no job adopted", "err", err)
	}
	if n == 0 {
		return
	}
	s.log.Info("files: released uploads no job adopted", "uploads", n, "after", UploadTTL)
	if _, err := s.store.Prune(); err != nil {
		s.log.Warn("files: prune the content store", "err", err)
	}
}
