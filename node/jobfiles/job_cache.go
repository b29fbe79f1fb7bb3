package jobfiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/files"
)

// A fetch of a job's files asks for each blob in turn, and `job get` for
// each file: loading the job and decoding its whole files list every time
// costs a job of n files n² (a build tree of thousands of files). The
// job, its files and inputs by sha256 are kept a few seconds per ref, so
// a batch loads them once. A role revoked meanwhile counts after at most
// jobCacheTTL, as a cached grant list would.

// jobCacheTTL is how long a job's record is reused for its blob requests.
const jobCacheTTL = 10 * time.Second

// jobCacheMax bounds the refs kept; past it the expired ones go, then all.
const jobCacheMax = 256

// cachedJob is one job's record and its blobs, until a time.
type cachedJob struct {
	job    *model.RunnerJob
	own    map[string]files.Entry // its files by sha256
	inputs map[string]bool        // its inputs' blobs
	list   string                 // sha256 of its files list, the blob it travels as when apart (lists.go)
	inList string                 // sha256 of its inputs list, likewise
	until  time.Time
}

// has reports whether sha is among the job's files or inputs, or is its
// files or inputs list.
func (c *cachedJob) has(sha string) bool {
	_, ok := c.own[sha]
	return ok || c.inputs[sha] || (sha != "" && (sha == c.list || sha == c.inList))
}

// jobCache holds cachedJobs by ref.
type jobCache struct {
	mu sync.Mutex
	m  map[string]*cachedJob // guarded by mu
}

// job returns job key of context ctxID and its blobs, from the cache or
// the store.
func (s *Service) job(ctx context.Context, ctxID uint64, key string) (*cachedJob, error) {
	ref, now := Ref(ctxID, key), time.Now()
	s.jobs.mu.Lock()
	c := s.jobs.m[ref]
	s.jobs.mu.Unlock()
	if c != nil && now.Before(c.until) {
		return c, nil
	}
	j, err := s.look.LoadJobKey(ctx, ctxID, key)
	if err != nil || j == nil {
		return nil, fmt.Errorf("no job %s here", ref)
	}
	c = &cachedJob{job: j, until: now.Add(jobCacheTTL)}
	c.own, c.inputs = blobsOf(j)
	c.list, c.inList = digestOf(j.FilesJSON()), digestOf(j.InputsJSON())
	s.jobs.mu.Lock()
	defer s.jobs.mu.Unlock()
	if s.jobs.m == nil || len(s.jobs.m) >= jobCacheMax {
		s.jobs.m = dropExpired(s.jobs.m, now)
	}
	s.jobs.m[ref] = c
	return c, nil
}

// digestOf is the hex sha256 of v, "" for none.
func digestOf(v string) string {
	if v == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// dropExpired is m without its expired entries, or empty when all are live.
func dropExpired(m map[string]*cachedJob, now time.Time) map[string]*cachedJob {
	out := make(map[string]*cachedJob, len(m))
	for k, c := range m {
		if now.Before(c.until) {
			out[k] = c
		}
	}
	if len(out) >= jobCacheMax {
		return map[string]*cachedJob{}
	}
	return out
}

// blobsOf is j's files by sha256, and its inputs' blobs.
func blobsOf(j *model.RunnerJob) (map[string]files.Entry, map[string]bool) {
	own, inputs := map[string]files.Entry{}, map[string]bool{}
	if es, err := files.DecodeEntries(j.FilesJSON()); err == nil {
		for _, e := range es {
			own[e.SHA256] = e
		}
	}
	if ins, err := files.DecodeInputs(j.InputsJSON()); err == nil {
		for _, in := range ins {
			for _, e := range in.Files {
				inputs[e.SHA256] = true
			}
		}
	}
	return own, inputs
}

// FileOf is the entry of the file with sha256 sha among job key's own
// files (not its inputs), for GET /files/...; ok false when it has none.
func (s *Service) FileOf(ctx context.Context, ctxID uint64, key, sha string) (files.Entry, bool, error) {
	c, err := s.job(ctx, ctxID, key)
	if err != nil {
		return files.Entry{}, false, err
	}
	e, ok := c.own[sha]
	return e, ok, nil
}
