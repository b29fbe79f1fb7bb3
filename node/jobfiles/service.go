package jobfiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"

	"github.com/hyphae-run/hyphae/files"
	"github.com/hyphae-run/hyphae/files/cas"
	"github.com/hyphae-run/hyphae/files/transfer"
)

// Config is what the component needs of the agent's config.
type Config struct {
	DataDir    string       // the store lives in <DataDir>/files
	Limits     files.Limits // files.max_file_mb, files.max_job_mb
	MaxStoreMB int64        // files.max_store_mb; 0: cas.DefaultMaxMB
	Log        *slog.Logger
}

// Service is an agent's files between jobs. Open it before the runner
// starts (outputs need only the store); Serve once the overlay's host is
// up (inputs from other agents need the client).
type Service struct {
	cfg   Config
	store *cas.Store
	look  Lookup
	log   *slog.Logger
	jobs  jobCache // job_cache.go

	mu     sync.Mutex
	self   string // this agent's peer ID, once serving
	client *transfer.Client
	server *transfer.Server
}

// Open opens the content store under cfg.DataDir.
func Open(cfg Config, look Lookup) (*Service, error) {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	maxMB := cfg.MaxStoreMB
	if maxMB == 0 {
		maxMB = cas.DefaultMaxMB
	}
	st, err := cas.Open(filepath.Join(cfg.DataDir, "files"), cas.Options{MaxBytes: maxMB << 20, Log: log})
	if err != nil {
		return nil, fmt.Errorf("jobfiles.Open: %w", err)
	}
	return &Service{cfg: cfg, store: st, look: look, log: log}, nil
}

// Store is the content store.
func (s *Service) Store() *cas.Store { return s.store }

// Serve starts the transfer server and client on h.
func (s *Service) Serve(h host.Host) error {
	srv, err := transfer.Serve(h, s.store, transfer.AuthorizerFunc(s.Allow), transfer.Config{Log: s.log})
	if err != nil {
		return fmt.Errorf("jobfiles.Serve: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.self, s.server, s.client = h.ID().String(), srv, transfer.NewClient(h, s.store, transfer.Config{Log: s.log})
	return nil
}

// Shutdown stops serving.
func (s *Service) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	srv := s.server
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Shutdown(ctx)
}

// Stats is the transfer server's counts and the bytes its client
// fetched (zero before Serve).
func (s *Service) Stats() transfer.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.server == nil {
		return transfer.Stats{}
	}
	st := s.server.Stats()
	if s.client != nil {
		st.BytesFetched = s.client.BytesReceived()
	}
	return st
}

// Ref names job key of context ctxID on this agent.
func Ref(ctxID uint64, key string) string { return strconv.FormatUint(ctxID, 10) + "/" + key }

// ParseRef splits a Ref.
func ParseRef(ref string) (uint64, string, error) {
	a, key, ok := strings.Cut(ref, "/")
	id, err := strconv.ParseUint(a, 10, 64)
	if !ok || err != nil || key == "" {
		return 0, "", fmt.Errorf("bad job ref %q: want <context>/<job key>", ref)
	}
	return id, key, nil
}

// holdRef is what the store holds a job's blobs for: never a ref a peer
// sends (a fetch holds for the serving agent's ref, released at once).
func holdRef(ctxID uint64, key string) string { return "job/" + Ref(ctxID, key) }

// Release drops the blobs the job holds and prunes what no job holds any
// more (the janitor calls it when the job is pruned).
func (s *Service) Release(ctxID uint64, key string) error {
	if err := s.store.Release(holdRef(ctxID, key)); err != nil {
		return fmt.Errorf("jobfiles.Release: %w", err)
	}
	return nil
}

// Prune removes the blobs no job holds, after releasing the uploads no
// job adopted within UploadTTL (upload_expiry.go).
func (s *Service) Prune() (cas.Pruned, error) {
	if n, err := s.expireUploads(time.Now(), UploadTTL); err != nil {
		s.log.Warn("files: expire uploads no job adopted", "err", err)
	} else if n > 0 {
		s.log.Info("files: released uploads no job adopted", "uploads", n, "after", UploadTTL)
	}
	p, err := s.store.Prune()
	if err != nil {
		return p, fmt.Errorf("jobfiles.Prune: %w", err)
	}
	return p, nil
}

// errNotServing: inputs from another agent before Serve.
var errNotServing = errors.New("files between agents are not served yet (no overlay)")
