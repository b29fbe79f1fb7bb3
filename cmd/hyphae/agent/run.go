package agent

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
)

// ConfigError is a config `hyphae run` refused before starting anything:
// the file did not load, or a key (from the file or a flag) is invalid.
type ConfigError struct{ err error }

func (e *ConfigError) Error() string { return e.err.Error() }
func (e *ConfigError) Unwrap() error { return e.err }

// BadConfig marks the error as bad usage to the CLI, which sees it
// through an interface (it does not import this package).
func (e *ConfigError) BadConfig() bool { return true }

// Run runs the agent on dataDir in the foreground until ctx ends, with
// the config of fs (the flags RunFlags added, parsed): the file of
// --config, else the data dir's when it exists, each flag given
// overriding its key. SIGHUP reloads the config. It logs to stderr.
func (Agent) Run(ctx context.Context, dataDir string, fs *pflag.FlagSet, stderr io.Writer) error {
	cfg, err := loadRunConfig(dataDir, fs)
	if err != nil {
		return &ConfigError{err}
	}
	level := new(slog.LevelVar)
	log := newLogger(cfg.Log, level, stderr)
	routeRedisLog(log)
	n, err := node.New(cfg, log)
	if err != nil {
		return err
	}
	n.SetReloader(reloader(dataDir, fs, n, level))
	stop := reloadOnHUP(n, log)
	defer stop()
	return n.Run(ctx)
}

// loadRunConfig reads the file, applies flags, fills defaults, validates.
func loadRunConfig(dataDir string, fs *pflag.FlagSet) (*config.Config, error) {
	cfg := &config.Config{}
	path, _ := fs.GetString("config")
	if path == "" {
		if p := node.PathsFor(dataDir).Config; fileExists(p) {
			path = p
		}
	}
	if path != "" {
		c, err := config.Load(path)
		if err != nil {
			return nil, err
		}
		cfg = c
		cfg.File = path
	}
	if fs.Changed("data-dir") || cfg.DataDir == "" {
		cfg.DataDir = dataDir
	}
	if a, b := flagValue(fs, "redis"), flagValue(fs, "redis-url"); fs.Changed("redis") && fs.Changed("redis-url") && a != b {
		return nil, fmt.Errorf("--redis %q and --redis-url %q differ: give one", a, b)
	}
	applyRunFlags(cfg, fs)
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// flagValue is the string value of flag name in fs ("" when unknown).
func flagValue(fs *pflag.FlagSet, name string) string { v, _ := fs.GetString(name); return v }

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func newLogger(c config.Log, level *slog.LevelVar, w io.Writer) *slog.Logger {
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// reloader re-reads the config the agent started with (file and flags)
// and hands it to n: the log level changes at once, other changes are
// reported as needing a restart. SIGHUP and POST /admin/reload share it;
// one reload runs at a time.
func reloader(dataDir string, fs *pflag.FlagSet, n *node.Node, level *slog.LevelVar) func() (*wire.ReloadView, error) {
	var mu sync.Mutex
	return func() (*wire.ReloadView, error) {
		mu.Lock()
		defer mu.Unlock()
		cfg, err := loadRunConfig(dataDir, fs)
		if err != nil {
			return nil, err
		}
		_ = level.UnmarshalText([]byte(cfg.Log.Level))
		return n.Reload(cfg), nil
	}
}

// reloadOnHUP reloads the config on SIGHUP (n's reloader).
func reloadOnHUP(n *node.Node, log *slog.Logger) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				if _, err := n.ReloadConfig(); err != nil {
					log.Error("SIGHUP: config not reloaded", "err", err)
				}
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
