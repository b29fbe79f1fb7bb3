// Package config is the agent's configuration: one YAML file decoded
// strictly (unknown keys are errors with their line), documented defaults,
// validation before anything starts, and flags that override the file.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hyphae-run/hyphae/context/model"
)

// Config is everything `hyphae run` needs. Zero values mean "default".
type Config struct {
	// File is the path the config was read from ("" = none); contained
	// jobs do not see it.
	File    string   `yaml:"-"`
	DataDir string   `yaml:"data_dir"` // default $HYPHAE_DATA_DIR, then ~/.hyphae
	Roles   []string `yaml:"roles"`    // supervisor, runner; default both
	Log     Log      `yaml:"log"`
	Redis   Redis    `yaml:"redis"`
	API     API      `yaml:"api"`
	Overlay Overlay  `yaml:"overlay"`
	Runner  Runner   `yaml:"runner"`
	// Executors maps extra script types to a command line; "{file}" is
	// replaced by the script's path, e.g. v: [v, run, "{file}"].
	Executors map[string][]string `yaml:"executors"`
	Bus       Bus                 `yaml:"bus"`
	// Supervisor tunes flow scheduling.
	Supervisor Supervisor `yaml:"supervisor"`
	// Retention says how long what has ended is kept (retention.go).
	Retention Retention `yaml:"retention"`
	// Trace configures span export over OTLP (trace.go).
	Trace Trace `yaml:"trace"`
	// Idempotency and Quarantine: idempotency keys' retention window and
	// when a failing job is set aside (poison.go).
	Idempotency Idempotency `yaml:"idempotency"`
	Quarantine  Quarantine  `yaml:"quarantine"`
	// Breaker tunes the circuit breakers per destination peer (breaker.go).
	Breaker Breaker `yaml:"breaker"`
	// Files bounds files between jobs and the content store (files.go).
	Files Files `yaml:"files"`
}

// Supervisor tunes the flow scheduler and what happens to jobs sent to an
// agent that becomes unreachable.
type Supervisor struct {
	// RunnerGrace: the jobs sent to a remote runner silent this long
	// become unknown (shown so; their status is untouched) until it
	// returns, when their results are taken as usual; default 30s.
	RunnerGrace time.Duration `yaml:"runner_grace"`
	// RunnerLostAfter: a runner unreachable this long has its jobs given
	// up on, saying they may still have run there: flow jobs with retries
	// left run again elsewhere, other jobs end error; a result that comes
	// later is kept beside the job. Like Nomad's disconnect.lost_after.
	// Default 1h, runner.default_timeout: by then a job sent there has
	// ended there (done, or killed at its timeout), so a rerun does not
	// run beside it, and a reboot, a Wi-Fi or VPN drop or a laptop's
	// sleep is waited out. Not below runner_grace.
	RunnerLostAfter time.Duration `yaml:"runner_lost_after"`
}

// Log configures structured logging.
type Log struct {
	Level  string `yaml:"level"`  // debug, info, warn, error; default info
	Format string `yaml:"format"` // text or json; default text
}

// Redis says which Redis to use.
type Redis struct {
	// URL of an existing Redis (redis://, rediss://, unix://). Empty: the
	// agent runs its own (redis-server child, else in-process).
	URL       string `yaml:"url"`
	Databases int    `yaml:"databases"` // for the embedded one; default 256
}

// API is the local control API.
type API struct {
	Listen string `yaml:"listen"` // host:port for TCP; default 127.0.0.1:9652; "off" disables TCP
	// SocketGroup: members of this group may use the socket (api_socket.go).
	SocketGroup string `yaml:"socket_group"`
}

// Overlay is the libp2p side.
type Overlay struct {
	Listen           []string      `yaml:"listen"`    // default tcp+quic on 4001, all interfaces
	Bootstrap        []string      `yaml:"bootstrap"` // multiaddrs with /p2p/
	MDNS             *bool         `yaml:"mdns"`      // default true
	DHT              *bool         `yaml:"dht"`       // default true
	SwarmKey         string        `yaml:"swarm_key"` // path to a swarm key file (private network)
	RelayService     bool          `yaml:"relay_service"`
	Relays           []string      `yaml:"relays"`       // default the bootstrap peers
	Reachability     string        `yaml:"reachability"` // auto (default), private or public; overlay.go
	NATPortMap       *bool         `yaml:"nat_port_map"` // default true
	Direct           *bool         `yaml:"direct"`       // default true: frames to a connected agent on a direct stream
	PresenceInterval time.Duration `yaml:"presence_interval"`
	// ForgetAfter: a peer down longer than this leaves the peer table
	// (and `hyphae peers`). Default 24h.
	ForgetAfter time.Duration `yaml:"forget_after"`
}

// Runner tunes job execution.
type Runner struct {
	Concurrency    int           `yaml:"concurrency"`     // default number of CPUs
	DefaultTimeout time.Duration `yaml:"default_timeout"` // default 1h
	WorkerID       string        `yaml:"worker_id"`       // hero dispatcher worker id; empty = off
	Python         string        `yaml:"python"`          // interpreter; default python3 on PATH
	DrainGrace     time.Duration `yaml:"drain_grace"`     // running jobs get this long at shutdown; default 30s
	User           string        `yaml:"user"`            // run jobs as this user (agent must be root); "" = as the agent
	// Cgroups runs each job in its own cgroup where cgroup v2 is usable
	// (kill the whole job on timeout/stop; memory_mb, cpu); default true.
	// false: process groups only. `hyphae info` shows which is in use.
	Cgroups *bool `yaml:"cgroups"`
	// MaxInFlightPerContext and Types cap the jobs the runner holds at once
	// per context and per script type (types.<type>.max_in_flight), beside
	// Concurrency; 0 or absent = no cap of their own (runner_limits.go).
	MaxInFlightPerContext int                   `yaml:"max_in_flight_per_context"`
	Types                 map[string]RunnerType `yaml:"types"`
	// Isolation says which jobs run contained (runner_isolation.go).
	Isolation RunnerIsolation `yaml:"isolation"`
}

// Bus tunes message delivery.
type Bus struct {
	TimeoutAck time.Duration `yaml:"timeout_ack"` // resend when unacked; default 3s
	Timeout    time.Duration `yaml:"timeout"`     // give up; default 10m
	Skew       time.Duration `yaml:"skew"`        // accepted clock skew; default 2m
	// Plain turns every shortcut of the bus off (ARCHITECTURE.md, "The
	// shortcuts"): each message takes the plain path the design describes.
	// Slower, same behaviour; for comparing and for ruling the shortcuts
	// out when something goes wrong. Needs a restart. The environment
	// variable HYPHAE_BUS_PLAIN=1 sets it too (PlainEnv).
	Plain bool `yaml:"plain"`
	// PlainOnly turns only the named shortcuts off (Shortcuts lists the
	// names); for tests and benchmarks, not in the file.
	PlainOnly []string `yaml:"-"`
}

// Load reads and strictly decodes path (missing file → error).
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(b, path)
}

// Parse strictly decodes YAML; name labels errors. An unknown key is an
// error naming its dotted path, its line and the closest valid key
// (unknownKeys). A config is one YAML document: a second one (after "---")
// is an error, not silently ignored.
func Parse(b []byte, name string) (*Config, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err == nil {
		if err := unknownKeys(&doc, name); err != nil {
			return nil, err
		}
	}
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("config %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		line := more.Line
		if err != nil {
			return nil, fmt.Errorf("config %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		return nil, fmt.Errorf("config %s: line %d: a second YAML document; a config is one document (remove the \"---\")", name, line)
	}
	return &c, nil
}

// DefaultDataDir is $HYPHAE_DATA_DIR, else ~/.hyphae.
func DefaultDataDir() string {
	if d := os.Getenv("HYPHAE_DATA_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".hyphae"
	}
	return filepath.Join(home, ".hyphae")
}

// Defaults fills every zero value with its documented default.
func (c *Config) Defaults() {
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir()
	}
	c.DataDir = AbsDataDir(c.DataDir)
	if len(c.Roles) == 0 {
		c.Roles = []string{"supervisor", "runner"}
	}
	if c.Log.Level == "" {
		c.Log.Level = "info"
	}
	if c.Log.Format == "" {
		c.Log.Format = "text"
	}
	if c.Redis.Databases == 0 {
		c.Redis.Databases = 256
	}
	if c.API.Listen == "" {
		c.API.Listen = "127.0.0.1:9652"
	}
	c.Overlay.defaults()
	if c.Runner.DrainGrace == 0 {
		c.Runner.DrainGrace = 30 * time.Second
	}
	if c.Runner.DefaultTimeout == 0 {
		c.Runner.DefaultTimeout = time.Hour
	}
	if c.Supervisor.RunnerGrace == 0 {
		c.Supervisor.RunnerGrace = 30 * time.Second
	}
	if c.Supervisor.RunnerLostAfter == 0 {
		c.Supervisor.RunnerLostAfter = time.Hour
	}
	if c.Bus.TimeoutAck == 0 {
		c.Bus.TimeoutAck = 3 * time.Second
	}
	if c.Bus.Timeout == 0 {
		c.Bus.Timeout = 10 * time.Minute
	}
	if c.Bus.Skew == 0 {
		c.Bus.Skew = 2 * time.Minute
	}
	if os.Getenv(PlainEnv) == "1" {
		c.Bus.Plain = true
	}
	c.Retention.defaults()
	c.Idempotency.defaults()
	c.Quarantine.defaults()
	c.Breaker.defaults()
	c.Files.defaults()
}

func (o *Overlay) defaults() {
	if len(o.Listen) == 0 {
		o.Listen = []string{"/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"}
	}
	t := true
	if o.MDNS == nil {
		o.MDNS = &t
	}
	if o.DHT == nil {
		o.DHT = &t
	}
	if o.NATPortMap == nil {
		o.NATPortMap = &t
	}
	if o.Direct == nil {
		o.Direct = &t
	}
	if o.ForgetAfter == 0 {
		o.ForgetAfter = 24 * time.Hour
	}
	if o.PresenceInterval == 0 {
		o.PresenceInterval = 3 * time.Second
	}
}

// HasRole reports whether the agent plays role.
func (c *Config) HasRole(role string) bool {
	for _, r := range c.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// Validate checks everything that can be checked before starting.
func (c *Config) Validate() error {
	var errs []error
	for _, r := range c.Roles {
		if r != "supervisor" && r != "runner" {
			errs = append(errs, fmt.Errorf("roles: unknown role %q (want supervisor, runner)", r))
		}
	}
	if !oneOf(c.Log.Level, "debug", "info", "warn", "error") {
		errs = append(errs, fmt.Errorf("log.level: %q (want debug, info, warn, error)", c.Log.Level))
	}
	if !oneOf(c.Log.Format, "text", "json") {
		errs = append(errs, fmt.Errorf("log.format: %q (want text or json)", c.Log.Format))
	}
	if c.Redis.URL != "" && !hasAnyPrefix(c.Redis.URL, "redis://", "rediss://", "unix://") {
		errs = append(errs, fmt.Errorf("redis.url: %q (want redis://, rediss:// or unix://)", c.Redis.URL))
	}
	if c.Redis.Databases < 2 {
		errs = append(errs, fmt.Errorf("redis.databases: %d (need at least 2: DB 0 plus one context)", c.Redis.Databases))
	}
	errs = append(errs, c.validateMore()...)
	return errors.Join(errs...)
}

func (c *Config) validateMore() []error {
	var errs []error
	if c.Runner.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("runner.concurrency: %d must not be negative", c.Runner.Concurrency))
	}
	errs = append(errs, validateRunnerLimits(c.Runner.MaxInFlightPerContext, c.Runner.Types)...)
	errs = append(errs, validateIsolation(c.Runner.Isolation)...)
	for t, argv := range c.Executors {
		if !model.ValidScriptType(t) {
			errs = append(errs, fmt.Errorf("executors: script type %q: want letters, digits and . _ + - (a flow's type: must match it)", t))
		}
		if len(argv) == 0 {
			errs = append(errs, fmt.Errorf("executors.%s: empty command line", t))
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"bus.timeout_ack", c.Bus.TimeoutAck}, {"supervisor.runner_grace", c.Supervisor.RunnerGrace},
		{"supervisor.runner_lost_after", c.Supervisor.RunnerLostAfter}, {"bus.timeout", c.Bus.Timeout}, {"bus.skew", c.Bus.Skew},
		{"runner.default_timeout", c.Runner.DefaultTimeout}, {"runner.drain_grace", c.Runner.DrainGrace}, {"overlay.presence_interval", c.Overlay.PresenceInterval},
		{"overlay.forget_after", c.Overlay.ForgetAfter}} {
		if d.v < 0 {
			errs = append(errs, fmt.Errorf("%s: %v must not be negative", d.name, d.v))
		}
	}
	errs = append(errs, c.Bus.validate()...)
	errs = append(errs, c.API.validateSocketGroup()...)
	errs = append(errs, c.Supervisor.validate()...)
	errs = append(errs, c.Retention.validate()...)
	errs = append(errs, c.Idempotency.validate()...)
	errs = append(errs, c.Breaker.validate()...)
	errs = append(errs, c.Files.validate()...)
	errs = append(errs, validateHost(c)...)
	errs = append(errs, validateOverlay(c)...)
	return append(errs, validateAddrs(c)...)
}

func oneOf(v string, opts ...string) bool {
	for _, o := range opts {
		if v == o {
			return true
		}
	}
	return false
}

func hasAnyPrefix(v string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	return false
}
