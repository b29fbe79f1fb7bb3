package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Retention says how long the agent keeps what has ended, and how much of
// a job's output (package context/retention; the byte caps in package
// executor).
type Retention struct {
	// Enabled sweeps every interval; false: only `hyphae prune` removes
	// anything. Default true.
	Enabled  *bool         `yaml:"enabled"`
	MaxAge   time.Duration `yaml:"max_age"`  // ended jobs, flows, messages older than this go; default 168h
	MaxJobs  int           `yaml:"max_jobs"` // ended jobs kept per context, newest first; default 10000
	MaxFlows int           `yaml:"max_flows"`
	// MaxMessages is how many settled messages a context keeps, and the
	// length msg_in is trimmed to; default 10000.
	MaxMessages int           `yaml:"max_messages"`
	Interval    time.Duration `yaml:"interval"`     // between sweeps; default 1m
	LogBytes    ByteSize      `yaml:"log_bytes"`    // a job's log in Redis; default 256KiB
	OutputBytes ByteSize      `yaml:"output_bytes"` // a job's output.log on disk; default 10MiB
}

// The retention defaults: those of context/retention and executor (a
// test checks), which say why.
const (
	defaultMaxAge       = 7 * 24 * time.Hour
	defaultMaxJobs      = 10000
	defaultMaxFlows     = 1000
	defaultMaxMessages  = 10000
	defaultSweep        = time.Minute
	defaultLogBytes     = 256 << 10
	defaultOutputBytes  = 10 << 20
	minRetentionLogSize = 1 << 10
)

func (r *Retention) defaults() {
	if r.Enabled == nil {
		t := true
		r.Enabled = &t
	}
	setDefault(&r.MaxAge, defaultMaxAge)
	setDefault(&r.MaxJobs, defaultMaxJobs)
	setDefault(&r.MaxFlows, defaultMaxFlows)
	setDefault(&r.MaxMessages, defaultMaxMessages)
	setDefault(&r.Interval, defaultSweep)
	setDefault(&r.LogBytes, defaultLogBytes)
	setDefault(&r.OutputBytes, defaultOutputBytes)
}

func setDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

func (r *Retention) validate() []error {
	var errs []error
	for _, d := range []struct {
		name string
		bad  bool
		v    any
	}{
		{"retention.max_age", r.MaxAge < 0, r.MaxAge}, {"retention.interval", r.Interval < 0, r.Interval},
		{"retention.max_jobs", r.MaxJobs < 0, r.MaxJobs}, {"retention.max_flows", r.MaxFlows < 0, r.MaxFlows},
		{"retention.max_messages", r.MaxMessages < 0, r.MaxMessages},
	} {
		if d.bad {
			errs = append(errs, fmt.Errorf("%s: %v must not be negative", d.name, d.v))
		}
	}
	for name, v := range map[string]ByteSize{"retention.log_bytes": r.LogBytes, "retention.output_bytes": r.OutputBytes} {
		if v != 0 && v < minRetentionLogSize {
			errs = append(errs, fmt.Errorf("%s: %d bytes: want at least 1KiB", name, int64(v)))
		}
	}
	return errs
}

// ByteSize is a number of bytes, written as a plain integer or with a
// unit: 512KiB, 10MiB, 1GiB (powers of 1024) or kB, MB, GB (of 1000).
type ByteSize int64

var byteUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}

// UnmarshalYAML reads a plain integer or a number with a unit.
func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := ParseByteSize(s)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*b = v
	return nil
}

// ParseByteSize reads "262144", "256KiB", "10MiB", "1GB".
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want bytes, e.g. 262144, 256KiB or 10MiB", s)
	}
	return ByteSize(n * mult), nil
}
