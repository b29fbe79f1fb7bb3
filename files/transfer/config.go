package transfer

import (
	"context"
	"log/slog"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// Authorizer decides whether peer p may have the blob sha for the job
// jobRef (docs/design.md, "Trust": the agent that runs the consuming
// job, or an actor with a role in the producer's context). A non-nil
// error refuses; its text goes to the peer as the reason.
type Authorizer interface {
	Allow(ctx context.Context, p peer.ID, sha, jobRef string) error
}

// AuthorizerFunc is a function as an Authorizer.
type AuthorizerFunc func(ctx context.Context, p peer.ID, sha, jobRef string) error

// Allow calls f.
func (f AuthorizerFunc) Allow(ctx context.Context, p peer.ID, sha, jobRef string) error {
	return f(ctx, p, sha, jobRef)
}

// Defaults of Config.
const (
	DefaultMaxParallel = 4
	DefaultQueueWait   = 30 * time.Second
	DefaultIdleTimeout = time.Minute
	// sendBuffer is what a server reads the blob through.
	sendBuffer = 256 << 10
)

// Config tunes a Server or a Client; zero fields take their defaults.
type Config struct {
	MaxParallel int           // transfers at once (served, or fetched)
	QueueWait   time.Duration // how long a request waits for a slot before busy
	IdleTimeout time.Duration // a stream that moves nothing this long ends
	Log         *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.MaxParallel <= 0 {
		c.MaxParallel = DefaultMaxParallel
	}
	if c.QueueWait <= 0 {
		c.QueueWait = DefaultQueueWait
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}
