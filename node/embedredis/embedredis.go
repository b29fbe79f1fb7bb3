package embedredis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// Kinds of server reported by (*Server).Kind.
const (
	KindRedisServer = "redis-server"
	KindInProcess   = "in-process"
)

// DefaultDatabases is the number of databases when Options.Databases is 0.
const DefaultDatabases = 256

// Time bounds of the managed child (variables so that tests can shorten them).
var (
	// readyTimeout bounds the wait for a new child's first reply to PING.
	readyTimeout = 10 * time.Second
	// shutdownTimeout bounds a graceful stop before the child is killed.
	shutdownTimeout = 10 * time.Second
)

// Options configures Start.
type Options struct {
	// DataDir is the agent's data dir; the child keeps its files in
	// DataDir/redis. Required for the redis-server kind.
	DataDir string
	// Databases is the number of databases (DB 0 plus one per context).
	// Zero or less means DefaultDatabases.
	Databases int
	// Log receives the package's logs; nil discards them.
	Log *slog.Logger
	// ForceInProcess skips redis-server even when it is installed.
	ForceInProcess bool
	// Restart bounds the restarts of a redis-server child that dies on its
	// own; the zero value means the defaults (RestartPolicy).
	Restart RestartPolicy
	// OnEvent, if set, is told each change of health of the child (down, up,
	// failed), in order, from the goroutine that restarts it: it must return
	// quickly. The in-process server has no events.
	OnEvent func(Event)
}

// Server is a running embedded Redis. Its methods are safe for concurrent use.
type Server struct {
	kind       string
	url        string
	persistent bool
	log        *slog.Logger
	stop       func(ctx context.Context) error
	child      *child // nil for the in-process kind

	onEvent    func(Event)
	done       chan struct{}
	failed     chan struct{}
	finishOnce sync.Once
	mu         sync.Mutex
	err        error
	health     error
	stopOnce   sync.Once
	stopErr    error
}

// Start starts the embedded Redis described by opts and returns once it
// answers commands. ctx bounds the start only; stop the server with Shutdown.
// An installed redis-server that fails to start is an error, never a silent
// fallback to the in-process server (which would lose the data dir's data).
func Start(ctx context.Context, opts Options) (*Server, error) {
	opts = opts.withDefaults()
	if !opts.ForceInProcess {
		if bin, err := exec.LookPath("redis-server"); err == nil {
			s, err := startChild(ctx, opts, bin)
			if err != nil {
				return nil, fmt.Errorf("embedredis.Start: %w", err)
			}
			return s, nil
		}
		opts.Log.Info("embedredis: redis-server not found on PATH")
	}
	s, err := startInProcess(opts)
	if err != nil {
		return nil, fmt.Errorf("embedredis.Start: %w", err)
	}
	return s, nil
}

func (o Options) withDefaults() Options {
	if o.Databases <= 0 {
		o.Databases = DefaultDatabases
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	o.Restart = o.Restart.withDefaults()
	if o.DataDir != "" {
		if abs, err := filepath.Abs(o.DataDir); err == nil {
			o.DataDir = abs
		}
	}
	return o
}

func newServer(kind, url string, persistent bool, opts Options) *Server {
	return &Server{
		kind:       kind,
		url:        url,
		persistent: persistent,
		log:        opts.Log,
		onEvent:    opts.OnEvent,
		done:       make(chan struct{}),
		failed:     make(chan struct{}),
	}
}

// URL is the address to give go-redis (redis.ParseURL): unix:///…/redis.sock
// for the child, redis://:password@127.0.0.1:port for the in-process server.
// It may contain a secret; do not log it.
func (s *Server) URL() string { return s.url }

// Persistent reports whether data survives a restart (true for the child).
func (s *Server) Persistent() bool { return s.persistent }

// Kind is KindRedisServer or KindInProcess.
func (s *Server) Kind() string { return s.kind }

// Done is closed when the server has stopped for good: by Shutdown, or
// when a dead child could not be restarted (then Failed is closed too).
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is nil while the server runs (also while a dead child is being
// restarted) and after a Shutdown; once Failed is closed it says why.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// finish records why the server stopped and closes Done, and Failed when
// err is not nil. Only the first call counts: a Shutdown after a failure
// keeps the failure.
func (s *Server) finish(err error) {
	s.finishOnce.Do(func() {
		s.mu.Lock()
		s.err = err
		s.health = cmp.Or(err, ErrStopped)
		s.mu.Unlock()
		if err != nil {
			close(s.failed)
		}
		close(s.done)
	})
}

// Shutdown stops the server: for the child, no more restarts, then a
// graceful SHUTDOWN (the AOF is flushed), a wait for its exit and a kill
// after 10 s or when ctx ends. Call it also after Failed, to release the
// data dir. Calling it again returns the first call's result.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOnce.Do(func() {
		if err := s.stop(ctx); err != nil {
			s.stopErr = fmt.Errorf("embedredis.Shutdown: %w", err)
		}
	})
	return s.stopErr
}

// ErrDied is wrapped by Health while a child that exited on its own is
// restarted, and by Err when it could not be.
var ErrDied = errors.New("embedded redis-server exited unexpectedly")
