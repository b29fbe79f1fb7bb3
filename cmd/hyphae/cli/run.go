package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/config"
)

// runFlags are the flags of `hyphae run`; each overrides its config key.
type runFlags struct {
	config, redis, api, roles, logLevel, logFormat, workerID string
	listen, bootstrap, relays                                []string
	reachability                                             string
	noMDNS, noNATPortMap, relayService                       bool
	concurrency                                              int
	presence                                                 time.Duration
}

func newRun(g *globals) *cobra.Command { return newRunWith(g, &runFlags{}) }

func newRunWith(g *globals, f *runFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the agent on this machine (foreground; SIGINT/SIGTERM drain and stop)",
		Long: `Run the agent: store, overlay, runner and supervisor, and the local API.
Configuration comes from --config (default <data-dir>/hyphae.yaml when it
exists); every flag given overrides its key. With no Redis configured the
agent runs its own. The first SIGINT/SIGTERM drains (no new work, running
jobs finish, outbox flushed) and exits 0; a second one exits at once.`,
		Example: `  hyphae run
  hyphae run --data-dir /tmp/a --listen /ip4/0.0.0.0/tcp/4101 --api 127.0.0.1:9701
  hyphae run --redis redis://127.0.0.1:6379 --roles runner --no-mdns \
      --bootstrap /ip4/192.0.2.10/tcp/4001/p2p/12D3KooW...
  hyphae run --relay-service            # a public rendezvous for home labs behind NAT`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadRunConfig(g, f, cmd.Flags())
			if err != nil {
				return usage("%v", err)
			}
			level := new(slog.LevelVar)
			log := newLogger(cfg.Log, level, cmd.ErrOrStderr())
			routeRedisLog(log)
			n, err := node.New(cfg, log)
			if err != nil {
				return failed("%v", err)
			}
			stop := reloadOnHUP(g, f, cmd.Flags(), n, level, log)
			defer stop()
			if err := n.Run(cmd.Context()); err != nil {
				return failed("%v", err)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.config, "config", "", "config file (default <data-dir>/hyphae.yaml if present)")
	fl.StringVar(&f.redis, "redis", "", "Redis URL (redis://, rediss://, unix://); empty = embedded")
	fl.StringVar(&f.api, "api", "", `TCP API address host:port (default 127.0.0.1:9652; "off" = socket only)`)
	fl.StringVar(&f.roles, "roles", "", "comma-separated roles: supervisor,runner (default both)")
	fl.StringArrayVar(&f.listen, "listen", nil, "overlay listen multiaddr (repeatable)")
	fl.StringArrayVar(&f.bootstrap, "bootstrap", nil, "bootstrap peer multiaddr with /p2p/ID (repeatable)")
	fl.BoolVar(&f.noMDNS, "no-mdns", false, "turn off LAN discovery by mDNS")
	fl.BoolVar(&f.noNATPortMap, "no-nat-portmap", false, "turn off UPnP / NAT-PMP port mapping (asking the LAN's router to open the listen ports)")
	fl.StringArrayVar(&f.relays, "relay", nil, "relay multiaddr with /p2p/ID to use behind NAT (repeatable; default the bootstrap peers)")
	fl.BoolVar(&f.relayService, "relay-service", false, "serve as a relay for agents behind NAT (a public rendezvous agent)")
	fl.StringVar(&f.reachability, "reachability", "", "auto, private (behind NAT: reserve a relay slot at once) or public")
	fl.StringVar(&f.logLevel, "log-level", "", "debug, info, warn, error")
	fl.StringVar(&f.logFormat, "log-format", "", "text or json")
	fl.IntVar(&f.concurrency, "concurrency", 0, "jobs run at once (default CPUs)")
	fl.StringVar(&f.workerID, "worker-id", "", "serve the hero dispatcher queues of this worker id")
	fl.DurationVar(&f.presence, "presence-interval", 0, "how often presence is announced (default 3s)")
	return cmd
}

// loadRunConfig reads the file, applies flags, fills defaults, validates.
func loadRunConfig(g *globals, f *runFlags, fl *pflag.FlagSet) (*config.Config, error) {
	cfg := &config.Config{}
	path := f.config
	if path == "" {
		if p := node.PathsFor(g.dataDir).Config; fileExists(p) {
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
	if fl.Changed("data-dir") || cfg.DataDir == "" {
		cfg.DataDir = g.dataDir
	}
	applyRunFlags(cfg, f, fl)
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

func applyRunFlags(cfg *config.Config, f *runFlags, fl *pflag.FlagSet) {
	set := fl.Changed
	if set("redis") {
		cfg.Redis.URL = f.redis
	}
	if set("api") {
		cfg.API.Listen = f.api
	}
	if set("roles") {
		cfg.Roles = splitList(f.roles)
	}
	if set("listen") {
		cfg.Overlay.Listen = f.listen
	}
	if set("bootstrap") {
		cfg.Overlay.Bootstrap = f.bootstrap
	}
	if set("relay") {
		cfg.Overlay.Relays = f.relays
	}
	if set("relay-service") {
		cfg.Overlay.RelayService = f.relayService
	}
	if set("reachability") {
		cfg.Overlay.Reachability = f.reachability
	}
	if set("no-mdns") {
		off := !f.noMDNS
		cfg.Overlay.MDNS = &off
	}
	if set("no-nat-portmap") {
		off := !f.noNATPortMap
		cfg.Overlay.NATPortMap = &off
	}
	if set("log-level") {
		cfg.Log.Level = f.logLevel
	}
	if set("log-format") {
		cfg.Log.Format = f.logFormat
	}
	if set("concurrency") {
		cfg.Runner.Concurrency = f.concurrency
	}
	if set("worker-id") {
		cfg.Runner.WorkerID = f.workerID
	}
	if set("presence-interval") {
		cfg.Overlay.PresenceInterval = f.presence
	}
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

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func newLogger(c config.Log, level *slog.LevelVar, w io.Writer) *slog.Logger {
	_ = level.UnmarshalText([]byte(c.Level))
	opts := &slog.HandlerOptions{Level: level}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// reloadOnHUP re-reads the config on SIGHUP: the log level changes at
// once, other changes are reported as needing a restart.
func reloadOnHUP(g *globals, f *runFlags, fl *pflag.FlagSet, n *node.Node, level *slog.LevelVar, log *slog.Logger) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				cfg, err := loadRunConfig(g, f, fl)
				if err != nil {
					log.Error("SIGHUP: config not reloaded", "err", err)
					continue
				}
				_ = level.UnmarshalText([]byte(cfg.Log.Level))
				n.Reload(cfg)
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
