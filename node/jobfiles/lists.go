package jobfiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/files"
)

// A job's files list too long for one message travels apart, as a blob
// of its own (overlay/bridge, files_apart.go): stored here for the job
// that made it, fetched by its origin through that job's ref. So does a
// job's inputs list (files_apart_inputs.go): stored at the origin for
// the job, fetched by the agent it was sent to. The Authorizer lets
// whoever may have the job's files have its lists (the blobs whose
// sha256 is a list's).

// MaxListMB bounds a files list fetched apart (about 250,000 files).
const MaxListMB = 64

// listPath labels a list's entry in errors; no job file has this name
// (it is not a path under a job's directory).
const listPath = "files-list.json"

// ErrBadList: a list entry no agent of this version publishes, or one
// past MaxListMB. No later try can succeed.
var ErrBadList = errors.New("bad files list")

// PublishList stores list, the files list of job key in context ctxID,
// as a blob held for that job, and returns its entry as JSON. A list
// past MaxListMB is refused: no origin would take it.
func (s *Service) PublishList(ctx context.Context, ctxID uint64, key, list string) (string, error) {
	if len(list) > MaxListMB<<20 {
		return "", fmt.Errorf("jobfiles.PublishList: %w: %d MiB, past the %d MiB an agent takes", ErrBadList, len(list)>>20, MaxListMB)
	}
	sum, err := s.heldSum(holdRef(ctxID, key), list)
	if err != nil {
		sum, err = s.store.Put(ctx, holdRef(ctxID, key), strings.NewReader(list))
	}
	if err != nil {
		return "", fmt.Errorf("jobfiles.PublishList: %w", err)
	}
	b, err := json.Marshal(sum.Entry(listPath, 0o644))
	if err != nil {
		return "", fmt.Errorf("jobfiles.PublishList: %w", err)
	}
	return string(b), nil
}

// heldSum holds for hold the blob of list when the store has it already
// (a resend publishes the same list again) and returns its sum; an error
// when it does not.
func (s *Service) heldSum(hold, list string) (files.Sum, error) {
	d := sha256.Sum256([]byte(list))
	sha := hex.EncodeToString(d[:])
	if !s.store.Has(sha) {
		return files.Sum{}, files.ErrNotFound
	}
	b, err := s.store.OpenBlob(sha)
	if err != nil {
		return files.Sum{}, err
	}
	_ = b.Close()
	if err := s.store.Hold(hold, sha); err != nil {
		return files.Sum{}, err
	}
	return files.Sum{Size: b.Size, SHA256: sha, ChunkSize: b.ChunkSize, Chunks: b.Chunks}, nil
}

// FetchInputsList brings the inputs list of entry desc from peer p,
// asked for through job ref there, and returns it; the blob is held only
// while it is read (the list goes into the job's hash).
func (s *Service) FetchInputsList(ctx context.Context, p peer.ID, ref, desc string) (string, error) {
	hold := "inputs-list/" + ref
	defer func() { _ = s.store.Release(hold) }()
	return s.fetchList(ctx, p, ref, desc, hold)
}

// FetchList brings the list of entry desc from peer p, asked for through
// job ref there, holds it for job key of context ctxID here, and returns
// it. A list this store has already is read from it.
func (s *Service) FetchList(ctx context.Context, p peer.ID, ref, desc string, ctxID uint64, key string) (string, error) {
	return s.fetchList(ctx, p, ref, desc, holdRef(ctxID, key))
}

// fetchList brings the list of entry desc from p through ref, held for
// hold.
func (s *Service) fetchList(ctx context.Context, p peer.ID, ref, desc, hold string) (string, error) {
	var e files.Entry
	if err := json.Unmarshal([]byte(desc), &e); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadList, err)
	}
	if err := e.Check(); err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadList, err)
	}
	if e.Size > MaxListMB<<20 {
		return "", fmt.Errorf("%w: %d MiB, past the %d MiB an agent takes", ErrBadList, e.Size>>20, MaxListMB)
	}
	in := files.Input{Peer: p.String(), Ref: ref, Files: []files.Entry{e}}
	if err := s.bring(ctx, in, hold); err != nil {
		return "", fmt.Errorf("jobfiles.FetchList: %w", err)
	}
	rc, err := s.store.OpenFile(e.SHA256)
	if err != nil {
		return "", fmt.Errorf("jobfiles.FetchList: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, e.Size+1))
	if err != nil {
		return "", fmt.Errorf("jobfiles.FetchList: %w", err)
	}
	if int64(len(b)) != e.Size {
		return "", fmt.Errorf("jobfiles.FetchList: %w: %d bytes, the entry says %d", files.ErrCorrupt, len(b), e.Size)
	}
	return string(b), nil
}
