package agent

import (
	"github.com/spf13/pflag"

	"github.com/hyphae-run/hyphae/node/config"
)

// RunFlags adds to fs the flags of `hyphae run`; each overrides its config
// key (applyRunFlags), so they live here, next to the config they set.
func (Agent) RunFlags(fl *pflag.FlagSet) {
	fl.String("config", "", "config file (default <data-dir>/hyphae.yaml if present)")
	fl.String("redis", "", "Redis URL (redis://, rediss://, unix://); empty = embedded")
	fl.String("redis-url", "", "the same as --redis, as the coordinator (seed 002) spells it")
	fl.String("api", "", `TCP API address host:port (default 127.0.0.1:9652; "off" = socket only)`)
	fl.String("roles", "", "comma-separated roles: supervisor,runner (default both)")
	fl.StringArray("listen", nil, "overlay listen multiaddr (repeatable)")
	fl.StringArray("bootstrap", nil, "bootstrap peer multiaddr with /p2p/ID (repeatable)")
	fl.Bool("no-mdns", false, "turn off LAN discovery by mDNS")
	fl.Bool("no-nat-portmap", false, "turn off UPnP / NAT-PMP port mapping (asking the LAN's router to open the listen ports)")
	fl.StringArray("relay", nil, "relay multiaddr with /p2p/ID to use behind NAT (repeatable; default the bootstrap peers)")
	fl.Bool("relay-service", false, "serve as a relay for agents behind NAT (a public rendezvous agent)")
	fl.String("reachability", "", "auto, private (behind NAT: reserve a relay slot at once) or public")
	fl.String("log-level", "", "debug, info, warn, error")
	fl.String("log-format", "", "text or json")
	fl.Int("concurrency", 0, "jobs run at once (default CPUs)")
	fl.String("worker-id", "", "serve the hero dispatcher queues of this worker id")
	fl.Duration("presence-interval", 0, "how often presence is announced (default 3s)")
}

// applyRunFlags sets the config key of every flag given. The flags are
// RunFlags', so their lookups cannot fail.
func applyRunFlags(cfg *config.Config, fl *pflag.FlagSet) {
	set := fl.Changed
	str := func(name string) string { v, _ := fl.GetString(name); return v }
	list := func(name string) []string { v, _ := fl.GetStringArray(name); return v }
	flag := func(name string) bool { v, _ := fl.GetBool(name); return v }
	if set("redis-url") {
		cfg.Redis.URL = str("redis-url")
	}
	if set("redis") {
		cfg.Redis.URL = str("redis")
	}
	if set("api") {
		cfg.API.Listen = str("api")
	}
	if set("roles") {
		cfg.Roles = splitList(str("roles"))
	}
	if set("listen") {
		cfg.Overlay.Listen = list("listen")
	}
	if set("bootstrap") {
		cfg.Overlay.Bootstrap = list("bootstrap")
	}
	if set("relay") {
		cfg.Overlay.Relays = list("relay")
	}
	if set("relay-service") {
		cfg.Overlay.RelayService = flag("relay-service")
	}
	if set("reachability") {
		cfg.Overlay.Reachability = str("reachability")
	}
	if set("no-mdns") {
		off := !flag("no-mdns")
		cfg.Overlay.MDNS = &off
	}
	if set("no-nat-portmap") {
		off := !flag("no-nat-portmap")
		cfg.Overlay.NATPortMap = &off
	}
	if set("log-level") {
		cfg.Log.Level = str("log-level")
	}
	if set("log-format") {
		cfg.Log.Format = str("log-format")
	}
	if set("concurrency") {
		cfg.Runner.Concurrency, _ = fl.GetInt("concurrency")
	}
	if set("worker-id") {
		cfg.Runner.WorkerID = str("worker-id")
	}
	if set("presence-interval") {
		cfg.Overlay.PresenceInterval, _ = fl.GetDuration("presence-interval")
	}
}
