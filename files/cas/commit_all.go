package cas

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hyphae-run/hyphae/files"
)

// Finish closes the files of a part whose chunks are all written,
// keeping the part (and its claim on the blob) for CommitAll, so that a
// batch of many parts does not hold two files open for each.
func (p *Part) Finish() error {
	if p.closed {
		return fmt.Errorf("cas.Finish: part closed")
	}
	if err := p.open(); err != nil { // an empty file has no chunk to open it
		return err
	}
	if err := p.closeFiles(); err != nil {
		return fmt.Errorf("cas.Finish: %w", err)
	}
	return nil
}

// CommitAll names parts, as Commit names one, for jobRef: sums[i] is the
// sum of parts[i], which the caller checked. Their bytes and chunk lists
// are made durable together before any is named, and the names after,
// with two syncs of the file system in all instead of three for each
// part. Every part is closed; errs[i] is what stopped parts[i], if
// anything.
func (s *Store) CommitAll(jobRef string, parts []*Part, sums []files.Sum) (errs []error) {
	errs = make([]error, len(parts))
	defer func() {
		for i, p := range parts {
			p.Close()
			if errs[i] != nil {
				errs[i] = fmt.Errorf("cas.CommitAll %s: %w", p.sha, errs[i])
			}
		}
	}()
	var written, named []string
	if err := s.holdAll(jobRef, parts); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	staged := make([]bool, len(parts)) // and not there already
	for i, p := range parts {
		staged[i], errs[i] = s.stage(p, sums[i])
		if staged[i] && errs[i] == nil {
			written = append(written, p.path(), s.chunksPath(p.sha)+".tmp")
		}
	}
	if len(written) > 0 {
		err := syncAll(s.dir, written)
		for i, p := range parts {
			if staged[i] && errs[i] == nil {
				if errs[i] = err; err == nil {
					errs[i] = s.name(p)
				}
				if errs[i] == nil {
					named = append(named, s.Path(p.sha))
				}
			}
			if staged[i] {
				s.settle(p, errs[i] == nil)
			}
		}
	}
	if len(named) > 0 {
		if err := syncAll(s.dir, named); err != nil {
			for i := range errs { // named, but not known durable
				if staged[i] && errs[i] == nil {
					errs[i] = err
				}
			}
		}
	}
	return errs
}

// holdAll holds the blobs of parts for jobRef with one append, before
// any is named, so that Prune never sees one unheld.
func (s *Store) holdAll(jobRef string, parts []*Part) error {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.sha + "\n")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if jobRef == "" {
		return fmt.Errorf("%w: job ref %q", files.ErrBadEntry, jobRef)
	}
	f, err := os.OpenFile(s.refPath(jobRef), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stage checks part p against sum (its blob held already) and writes
// its chunk list beside the blob's name, not yet synced nor named. A
// blob that is there already is held only, its part removed and its
// reservation given back; staged is false then.
func (s *Store) stage(p *Part, sum files.Sum) (staged bool, err error) {
	if p.closed || p.f != nil {
		return false, fmt.Errorf("part closed or not finished")
	}
	if sum.SHA256 != p.sha || sum.Size != p.size || p.verified != files.ChunkCount(p.size, p.chunkSize) {
		return false, fmt.Errorf("%w: part of %s incomplete or another blob", files.ErrCorrupt, p.sha)
	}
	if s.Has(p.sha) {
		p.Discard() // its Close gives the reservation back
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(s.Path(p.sha)), 0o700); err != nil {
		return true, err
	}
	return true, os.WriteFile(s.chunksPath(p.sha)+".tmp", encodeChunks(sum.ChunkSize, sum.Chunks), 0o600)
}

// name renames the staged part p and its chunk list to their names, the
// chunk list first.
func (s *Store) name(p *Part) error {
	if err := os.Rename(s.chunksPath(p.sha)+".tmp", s.chunksPath(p.sha)); err != nil {
		return err
	}
	if err := os.Chmod(p.path(), 0o444); err != nil {
		return err
	}
	return os.Rename(p.path(), s.Path(p.sha))
}

// settle counts a named part's bytes as the store's, gives back its
// reservation and removes its sidecar; a part not named stays for a
// resume.
func (s *Store) settle(p *Part, ok bool) {
	if !ok {
		_ = os.Remove(s.chunksPath(p.sha) + ".tmp")
		return // Close gives the reservation back
	}
	s.mu.Lock()
	s.reserved -= p.reserved
	s.used += p.size
	s.mu.Unlock()
	p.reserved = 0
	_ = os.Remove(p.path() + ".ok")
}
