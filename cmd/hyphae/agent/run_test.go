package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// runFlagSet is the flags of `hyphae run` parsed from args.
func runFlagSet(t *testing.T, args []string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	New().RunFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// Flags given to `hyphae run` override the config file; the rest comes from
// the file, then the defaults.
func TestRunFlagsOverrideFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("roles: [runner]\napi: {listen: 127.0.0.1:7000}\nredis: {url: redis://127.0.0.1:1}\n"), 0o600)
	fs := runFlagSet(t, []string{"--config", file, "--api", "127.0.0.1:7001", "--no-mdns", "--bootstrap",
		"/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWEgYLD9nXKiZhcWrnZJ8quTEwMjTi6WcRsVhg3g2ZgEMc"})
	cfg, err := loadRunConfig(dir, fs)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.API.Listen != "127.0.0.1:7001" || *cfg.Overlay.MDNS || len(cfg.Overlay.Bootstrap) != 1 {
		t.Fatalf("flags not applied: %+v", cfg)
	}
	if len(cfg.Roles) != 1 || cfg.Roles[0] != "runner" || cfg.Redis.URL != "redis://127.0.0.1:1" {
		t.Fatalf("file not applied: %+v", cfg)
	}
	if cfg.Runner.DrainGrace == 0 || cfg.DataDir != dir {
		t.Fatalf("defaults not applied: %+v", cfg)
	}
}

// --no-nat-portmap turns overlay.nat_port_map off; without it the default
// (on) stands.
func TestRunNoNATPortMapFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"--no-nat-portmap"}, false},
		{[]string{"--no-nat-portmap=false"}, true},
	} {
		cfg, err := loadRunConfig(t.TempDir(), runFlagSet(t, c.args))
		if err != nil {
			t.Fatal(err)
		}
		if got := *cfg.Overlay.NATPortMap; got != c.want {
			t.Errorf("%v: nat_port_map %v, want %v", c.args, got, c.want)
		}
	}
}

// --redis-url, the coordinator's spelling (seed 002), sets redis.url as
// --redis does; the two given with different URLs are refused.
func TestRunRedisURLFlag(t *testing.T) {
	cfg, err := loadRunConfig(t.TempDir(), runFlagSet(t, []string{"--redis-url", "redis://127.0.0.1:2"}))
	if err != nil || cfg.Redis.URL != "redis://127.0.0.1:2" {
		t.Fatalf("--redis-url: %v, redis.url %q", err, cfg.Redis.URL)
	}
	_, err = loadRunConfig(t.TempDir(), runFlagSet(t, []string{"--redis-url", "redis://127.0.0.1:2", "--redis", "redis://127.0.0.1:3"}))
	if err == nil {
		t.Fatal("--redis and --redis-url with different URLs were taken")
	}
}
