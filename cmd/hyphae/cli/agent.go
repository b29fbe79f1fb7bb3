package cli

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/spf13/pflag"
)

// Agent is what the CLI needs from an agent in its own process: the
// commands that act there (init, id, run, demo), the data dir's socket and
// the version. Every other command talks to a running agent through its
// API client only. cmd/hyphae/agent implements it and main hands it in;
// its methods take plain types so that this package imports none of the
// agent's.
type Agent interface {
	// DefaultDataDir is the --data-dir default ($HYPHAE_DATA_DIR, ~/.hyphae).
	DefaultDataDir() string
	// Socket is the API socket of the agent on dataDir.
	Socket(dataDir string) string
	// Version is this binary's version, as every surface reports it.
	Version() string
	// Identity reads dataDir's actor key.
	Identity(dataDir string) (peerID, ageRecipient string, err error)
	// Init creates dataDir and writes to w what it did (`hyphae init`).
	Init(w io.Writer, dataDir string, swarmKey bool) error
	// RunFlags adds the flags of `hyphae run` to fs.
	RunFlags(fs *pflag.FlagSet)
	// Run runs the agent on dataDir with the config fs's flags make, until
	// ctx ends. A config refused before starting is an error with a
	// method BadConfig() bool (bad usage).
	Run(ctx context.Context, dataDir string, fs *pflag.FlagSet, stderr io.Writer) error
	// Demo runs `hyphae demo`, reporting to out and logging to log.
	Demo(ctx context.Context, out io.Writer, log *slog.Logger, dir string, keep bool, timeout time.Duration) error
}
