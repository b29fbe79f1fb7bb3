package executor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/hyphae-run/hyphae/internal/tracing"
)

// Config tunes a Runner. Zero values take the defaults documented per field.
type Config struct {
	DataDir        string        // required; job directories live under <DataDir>/contexts/<N>/jobs/
	Concurrency    int           // jobs run at once; default runtime.NumCPU()
	DefaultTimeout time.Duration // for jobs with timeout 0; default 1h
	KillGrace      time.Duration // SIGTERM → SIGKILL delay for timeouts and drains; default 5s
	Lease          time.Duration // lease on a running job; default 30s
	Heartbeat      time.Duration // lease renewal period; default Lease/3
	StdoutCap      int           // bytes of stdout kept in the result; default 64 KiB
	LogLines       int           // log lines kept in Redis per job; default 10000
	LogBytes       int           // bytes of log lines kept in Redis per job; default 256 KiB
	OutputBytes    int64         // bytes of a job's output.log; default 10 MiB

	// Executors maps extra script types to a command line; "{file}" is
	// replaced by the script's path (appended when absent), e.g.
	// "v": {"v", "run", "{file}"}. An entry may also replace a built-in.
	Executors map[string][]string
	// Python is the interpreter of the python type; default: python3 from
	// PATH, resolved once to the real interpreter when that is a wrapper
	// script (a pyenv shim costs a second interpreter start per job).
	Python string

	WorkerID string // hero dispatcher worker id; "" = hero protocol off
	// User runs jobs as this unprivileged user (the agent must be root, and
	// the data dir's parents searchable by others); "" = as the agent.
	User     string
	RunnerID string // names processing:<id> and lease owners; default <hostname>-<hash of DataDir>
	// NoCgroups runs jobs in process groups only, even where each could
	// have a cgroup of its own (see Isolation).
	NoCgroups bool
	// NoChain turns chaining off (chain.go): a finished job frees its slot
	// and the loop claims the next one (bus.plain, the chain shortcut).
	NoChain bool

	// Contexts lists the context DBs to serve (refreshed every
	// ContextRefresh); default: every context in the DB 0 registry.
	Contexts func(ctx context.Context) ([]uint64, error)

	RetryBackoff    time.Duration // first retry delay, doubled per attempt; default 1s
	RetryBackoffMax time.Duration // cap of the retry delay; default 5m
	Poll            time.Duration // queue re-check without a wake-up; default 1s (200ms without keyspace events)
	ContextRefresh  time.Duration // how often Contexts is called; default 3s
	Sweep           time.Duration // scan for queues of types nobody serves; default 2s

	// MaxInFlightPerContext caps the jobs of one context this runner holds
	// at once; 0 = only Concurrency. TypeLimits caps them per script type
	// (type → at most that many); a type not named has no cap of its own.
	// Either turns chaining and offers off (keyed_limits.go).
	MaxInFlightPerContext int
	TypeLimits            map[string]int

	// Contain says which jobs run contained (contain.go).
	Contain Contain

	// Tracer exports a run span per attempt; nil: off.
	Tracer *tracing.Tracer

	// Files carries a job's inputs and outputs (outputs.go); nil: jobs
	// with either end error.
	Files Files
}

// withDefaults returns c with every zero field set.
func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Concurrency == 0 {
		c.Concurrency = runtime.NumCPU()
	}
	def(&c.DefaultTimeout, time.Hour)
	def(&c.KillGrace, 5*time.Second)
	def(&c.Lease, 30*time.Second)
	def(&c.Heartbeat, c.Lease/3)
	def(&c.RetryBackoff, time.Second)
	def(&c.RetryBackoffMax, 5*time.Minute)
	def(&c.ContextRefresh, 3*time.Second)
	def(&c.Sweep, 2*time.Second)
	if c.StdoutCap == 0 {
		c.StdoutCap = 64 << 10
	}
	if c.LogLines == 0 {
		c.LogLines = 10000
	}
	if c.LogBytes == 0 {
		c.LogBytes = DefaultLogBytes
	}
	if c.OutputBytes == 0 {
		c.OutputBytes = DefaultOutputBytes
	}
	if c.limited() { // chains and offers claim outside the limits' check
		c.NoChain = true
	}
	c.Contain = c.Contain.withDefaults()
	if c.RunnerID == "" && c.DataDir != "" {
		c.RunnerID = defaultRunnerID(c.DataDir)
	}
	return c
}

// defaultRunnerID is stable for a data dir on a host, so a restarted agent
// finds its own processing list.
func defaultRunnerID(dataDir string) string {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(abs))
	return strings.Join(strings.Fields(host), "_") + "-" + hex.EncodeToString(sum[:4])
}

// Validate checks c (with defaults applied).
func (c Config) Validate() error {
	d := c.withDefaults()
	var errs []error
	check := func(ok bool, format string, a ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, a...))
		}
	}
	check(d.DataDir != "", "DataDir is required")
	check(d.Concurrency > 0, "Concurrency %d must be positive", d.Concurrency)
	check(d.StdoutCap > 0 && d.LogLines > 0, "StdoutCap and LogLines must be positive")
	check(d.LogBytes >= MinLogBytes && d.OutputBytes >= MinLogBytes,
		"LogBytes %d and OutputBytes %d must be at least %d", d.LogBytes, d.OutputBytes, MinLogBytes)
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"DefaultTimeout", d.DefaultTimeout}, {"KillGrace", d.KillGrace}, {"Lease", d.Lease},
		{"Heartbeat", d.Heartbeat}, {"RetryBackoff", d.RetryBackoff}, {"RetryBackoffMax", d.RetryBackoffMax},
		{"ContextRefresh", d.ContextRefresh}, {"Sweep", d.Sweep}} {
		check(f.v > 0, "%s %v must be positive", f.name, f.v)
	}
	if err := d.Contain.validate(); err != nil {
		errs = append(errs, err)
	}
	check(d.Poll >= 0, "Poll %v must not be negative", d.Poll)
	check(d.Heartbeat < d.Lease, "Heartbeat %v must be shorter than Lease %v", d.Heartbeat, d.Lease)
	check(validName(d.RunnerID), "RunnerID %q must be non-empty without spaces", d.RunnerID)
	check(d.WorkerID == "" || validName(d.WorkerID), "WorkerID %q must not contain spaces", d.WorkerID)
	for t, argv := range d.Executors {
		check(validName(t) && !strings.Contains(t, ":"), "executor type %q: want a word without spaces or ':'", t)
		check(len(argv) > 0 && argv[0] != "", "executor %q: empty command line", t)
	}
	errs = append(errs, d.validLimits()...)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("executor config: %w", err)
	}
	return nil
}

func validName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\r\n")
}
