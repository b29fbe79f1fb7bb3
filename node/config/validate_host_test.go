package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
)

// A typo in the API port is a config error naming the key, not a bind
// failure after Redis, the runner and the overlay have started.
func TestAPIListenPortIsValidated(t *testing.T) {
	for _, bad := range []string{"127.0.0.1:9752x", "127.0.0.1:70000", "127.0.0.1:", "localhost"} {
		c := &config.Config{API: config.API{Listen: bad}}
		c.Defaults()
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "api.listen") {
			t.Errorf("api.listen %q: Validate = %v, want an api.listen error", bad, err)
		}
	}
	for _, good := range []string{"off", "127.0.0.1:9652", "[::1]:9652", "localhost:0", ":9652"} {
		c := &config.Config{API: config.API{Listen: good}}
		c.Defaults()
		if err := c.Validate(); err != nil {
			t.Errorf("api.listen %q: %v", good, err)
		}
	}
}

// What names a thing on this machine is checked before anything starts.
func TestHostThingsAreValidated(t *testing.T) {
	c := &config.Config{
		Redis:   config.Redis{URL: "redis://127.0.0.1:6379/notanumber"},
		Overlay: config.Overlay{SwarmKey: filepath.Join(t.TempDir(), "missing.key")},
		Runner:  config.Runner{Python: "no-such-python-hyphae", User: "no-such-user-hyphae"},
	}
	c.Defaults()
	err := c.Validate()
	for _, want := range []string{"redis.url", "overlay.swarm_key", "runner.python", "runner.user"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate lacks %q: %v", want, err)
		}
	}
}

// A relative data dir (or one starting with ~/) is made absolute once, at
// load: jobs run in directories below it and would resolve it again.
func TestDataDirIsMadeAbsolute(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c := &config.Config{DataDir: "rel/dir"}
	c.Defaults()
	if c.DataDir != filepath.Join(wd, "rel/dir") {
		t.Errorf("data_dir rel/dir became %q, want %q", c.DataDir, filepath.Join(wd, "rel/dir"))
	}
	t.Setenv("HOME", "/home/someone")
	c = &config.Config{DataDir: "~/.hyphae"}
	c.Defaults()
	if c.DataDir != "/home/someone/.hyphae" {
		t.Errorf("data_dir ~/.hyphae became %q", c.DataDir)
	}
}
