package jobfiles

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"

	"github.com/hyphae-run/hyphae/files"
)

// Files shipped with a job (`hyphae job run --input FILE[:NAME]`): the CLI
// uploads each into the store, held for an upload token, then submits the
// job naming them; the job, once recorded, holds them instead (Adopt).

// uploadRef is what an upload's blob is held for until its job adopts it.
func uploadRef(token string) string { return "upload/" + token }

// Upload stores r's bytes, held for a new upload token, and returns the
// token and their sum. Past files.max_file_mb it fails, keeping nothing.
func (s *Service) Upload(ctx context.Context, r io.Reader) (string, files.Sum, error) {
	s.pruneStaleUploads()
	token := rand.Text()
	lim := s.cfg.Limits.WithDefaults()
	sum, err := s.store.Put(ctx, uploadRef(token), io.LimitReader(r, lim.MaxFileBytes+1))
	if err != nil {
		return "", sum, fmt.Errorf("jobfiles.Upload: %w", err)
	}
	if sum.Size > lim.MaxFileBytes {
		_ = s.store.Release(uploadRef(token))
		return "", files.Sum{}, fmt.Errorf("jobfiles.Upload: %w: past %d MiB", files.ErrFileTooLarge, lim.MaxFileBytes>>20)
	}
	if err := s.markUpload(token); err != nil { // upload_expiry.go
		_ = s.store.Release(uploadRef(token))
		return "", files.Sum{}, fmt.Errorf("jobfiles.Upload: %w", err)
	}
	return token, sum, nil
}

// UploadedEntry is the entry of uploaded blob sha as file path with mode.
func (s *Service) UploadedEntry(sha, path string, mode uint32) (files.Entry, error) {
	b, err := s.store.OpenBlob(sha)
	if err != nil {
		return files.Entry{}, fmt.Errorf("input %s: %w (upload it first: POST /files)", path, err)
	}
	defer b.Close()
	sum := files.Sum{Size: b.Size, SHA256: sha, ChunkSize: b.ChunkSize, Chunks: b.Chunks}
	e := sum.Entry(path, mode&0o777)
	if err := e.Check(); err != nil {
		return files.Entry{}, fmt.Errorf("input %s: %w", path, err)
	}
	return e, nil
}

// Adopt makes job key (context ctxID here) hold the uploaded blobs shas,
// and drops the uploads' own holds (tokens); with no shas it only drops
// them (a submission that made no job).
func (s *Service) Adopt(ctxID uint64, key string, shas, tokens []string) error {
	for _, sha := range shas {
		if err := s.store.Hold(holdRef(ctxID, key), sha); err != nil {
			return fmt.Errorf("jobfiles.Adopt: %w", err)
		}
	}
	for _, t := range tokens {
		if err := s.store.Release(uploadRef(t)); err != nil {
			return fmt.Errorf("jobfiles.Adopt: %w", err)
		}
		if err := s.unmarkUpload(t); err != nil {
			return fmt.Errorf("jobfiles.Adopt: %w", err)
		}
	}
	return nil
}
