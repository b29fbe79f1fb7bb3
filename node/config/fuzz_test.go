package config_test

import (
	"net"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"

	"github.com/hyphae-run/hyphae/node/config"
)

const fuzzName = "fuzz.yaml"

// validateKey is how every validation error starts: a top-level key of the
// file, then ':' or a '.' to a nested key.
var validateKey = regexp.MustCompile(`^(data_dir|roles|log|redis|api|overlay|runner|executors|bus|supervisor)[.:]`)

// FuzzParse guards loading a config file the way `hyphae run` does (Parse,
// Defaults, Validate): no input panics; a decode error names the file (and
// its line when a key or a type is wrong); a validation error names each bad
// key; the same bytes always give the same config; Defaults is idempotent;
// and an accepted config holds what validation promises the rest of the
// agent (known roles and log settings, a usable API address, parseable
// listen multiaddrs, positive durations).
func FuzzParse(f *testing.F) {
	f.Add(config.Example)
	f.Add("roles: [runner]\n")
	f.Add("")
	f.Add("roles: [runner]\nredis:\n  urll: redis://x\n")
	f.Add("roles: runner\nredis: {databases: lots}\noverlay: {mdns: maybe}\nexecutors: [v]\n")
	f.Add("redis: {url: \"http://x\", databases: 1}\napi: {listen: nope}\n")
	f.Add("bus: {timeout: 10 minutes, timeout_ack: 5}\n")
	f.Add("bus: {skew: -1s, timeout: 0s}\nrunner: {drain_grace: -30s, concurrency: -1}\n")
	f.Add("overlay: {bootstrap: [/ip4/1.2.3.4/tcp/1], listen: [garbage], relays: [/p2p/x]}\nexecutors: {v: []}\n")
	f.Add("executors: {v: " + strings.Repeat("[", 500) + strings.Repeat("]", 500) + "}\n")
	f.Add("executors:\n  a: &a [x, x, x, x]\n  b: &b [*a, *a, *a, *a]\n  c: &c [*b, *b, *b, *b]\n  d: [*c, *c, *c, *c]\n  e: *a\n")
	f.Add("\x00\xff{{{ ::: ]]\n\t- !!binary %%%\n")
	f.Add("roles: [supervisor]\n---\nbogus: 1\n")
	f.Fuzz(func(t *testing.T, data string) {
		c, err := config.Parse([]byte(data), fuzzName)
		c2, err2 := config.Parse([]byte(data), fuzzName)
		if errText(err) != errText(err2) || !reflect.DeepEqual(c, c2) {
			t.Fatalf("parsing twice differs:\n%+v, %v\n%+v, %v", c, err, c2, err2)
		}
		if err != nil {
			checkParseError(t, err)
			return
		}
		c.Defaults()
		c2.Defaults()
		c2.Defaults()
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("Defaults is not idempotent:\n once  %+v\n twice %+v", c, c2)
		}
		if err := c.Validate(); err != nil {
			checkValidateError(t, err)
			return
		}
		checkAccepted(t, c)
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func checkParseError(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	prefix := "config " + fuzzName + ": "
	if !strings.HasPrefix(msg, prefix) || strings.TrimSpace(msg[len(prefix):]) == "" {
		t.Fatalf("decode error does not name the file and a cause: %q", msg)
	}
	if (strings.Contains(msg, "not found in type") || strings.Contains(msg, "cannot unmarshal")) &&
		!strings.Contains(msg, "line ") {
		t.Fatalf("key or type error without its line: %q", msg)
	}
}

func checkValidateError(t *testing.T, err error) {
	t.Helper()
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("validation error is %T, not a list: %v", err, err)
	}
	for _, e := range joined.Unwrap() {
		if !validateKey.MatchString(e.Error()) {
			t.Fatalf("validation error does not start with its key: %q", e)
		}
	}
}

// checkAccepted checks directly what Validate and Defaults promise.
func checkAccepted(t *testing.T, c *config.Config) {
	t.Helper()
	if len(c.Roles) == 0 {
		t.Fatal("accepted with no roles")
	}
	for _, r := range c.Roles {
		if r != "supervisor" && r != "runner" {
			t.Fatalf("accepted role %q", r)
		}
	}
	if !slices.Contains([]string{"debug", "info", "warn", "error"}, c.Log.Level) || (c.Log.Format != "text" && c.Log.Format != "json") {
		t.Fatalf("accepted log %+v", c.Log)
	}
	if _, _, err := net.SplitHostPort(c.API.Listen); c.API.Listen != "off" && err != nil {
		t.Fatalf("accepted api.listen %q: %v", c.API.Listen, err)
	}
	if c.Redis.Databases < 2 || c.Runner.Concurrency < 0 {
		t.Fatalf("accepted redis.databases %d, runner.concurrency %d", c.Redis.Databases, c.Runner.Concurrency)
	}
	if len(c.Overlay.Listen) == 0 || c.Overlay.MDNS == nil || c.Overlay.DHT == nil || c.Overlay.NATPortMap == nil {
		t.Fatalf("overlay defaults missing: %+v", c.Overlay)
	}
	for _, a := range c.Overlay.Listen {
		if _, err := ma.NewMultiaddr(a); err != nil {
			t.Fatalf("accepted overlay.listen %q: %v", a, err)
		}
	}
	for _, a := range append(append([]string{}, c.Overlay.Bootstrap...), c.Overlay.Relays...) {
		if !strings.Contains(a, "/p2p/") {
			t.Fatalf("accepted peer address without /p2p/: %q", a)
		}
	}
	for i, d := range []time.Duration{c.Bus.TimeoutAck, c.Bus.Timeout, c.Bus.Skew, c.Supervisor.RunnerGrace,
		c.Runner.DefaultTimeout, c.Runner.DrainGrace, c.Overlay.PresenceInterval} {
		if d <= 0 {
			t.Fatalf("accepted duration #%d = %v (must be positive after defaults)", i, d)
		}
	}
	for typ, argv := range c.Executors {
		if len(argv) == 0 {
			t.Fatalf("accepted executor %q with no command line", typ)
		}
	}
}
