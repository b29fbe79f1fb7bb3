package embedredis

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// kind is one way of running the embedded Redis in a table test.
type kind struct {
	name      string
	inProcess bool
}

var kinds = []kind{{KindRedisServer, false}, {KindInProcess, true}}

// needRedisServer ends t (need.Tool) when redis-server is not installed:
// the managed-child tests need it.
func needRedisServer(t *testing.T) {
	t.Helper()
	need.Tool(t, "redis-server", "redis-server")
}

// startKind starts a server of kind k in a fresh data dir and stops it when
// the test ends.
func startKind(t *testing.T, k kind) *Server {
	t.Helper()
	if !k.inProcess {
		needRedisServer(t)
	}
	return startT(t, Options{DataDir: t.TempDir(), ForceInProcess: k.inProcess, Log: testLog(t)})
}

func startT(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { shutdownT(t, s) })
	return s
}

func shutdownT(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// clientDB returns a go-redis client on database db of s, closed at the end.
func clientDB(t *testing.T, s *Server, db int) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(s.URL())
	if err != nil {
		t.Fatalf("ParseURL(%q): %v", s.URL(), err)
	}
	o.DB = db
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testLog sends the package's logs to the test log.
func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t *testing.T }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(bytes.TrimRight(p, "\n")))
	return len(p), nil
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// childPid is the pid of the current redis-server process of s.
func childPid(s *Server) int {
	if p := s.child.current(); p != nil {
		return p.pid()
	}
	return 0
}
