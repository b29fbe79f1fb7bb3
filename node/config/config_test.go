package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
)

// The example written by init and kept in configs/ parses strictly and
// validates; the two stay the same text.
func TestExampleParsesAndMatchesConfigsDir(t *testing.T) {
	c, err := config.Parse([]byte(config.Example), "example")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("../../configs/hyphae.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != config.Example {
		t.Fatal("configs/hyphae.yaml differs from config.Example: regenerate it")
	}
}

func TestUnknownKeyIsAnErrorWithItsLine(t *testing.T) {
	_, err := config.Parse([]byte("roles: [runner]\nredis:\n  urll: redis://x\n"), "h.yaml")
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "urll") {
		t.Fatalf("err = %v", err)
	}
}

// A second YAML document would otherwise be ignored, unknown keys and all.
func TestSecondDocumentIsAnError(t *testing.T) {
	_, err := config.Parse([]byte("roles: [supervisor]\n---\nbogus: 1\n"), "h.yaml")
	if err == nil || !strings.Contains(err.Error(), "second YAML document") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want an error naming the second document and its line", err)
	}
	if _, err := config.Parse([]byte("---\nroles: [runner]\n"), "h.yaml"); err != nil {
		t.Fatalf("one document after a leading ---: %v", err)
	}
}

func TestValidateNamesEachBadKey(t *testing.T) {
	c, err := config.Parse([]byte(`
roles: [runner, boss]
log: {level: loud}
redis: {url: "http://x"}
api: {listen: "nope"}
overlay: {bootstrap: ["/ip4/1.2.3.4/tcp/1"], listen: ["garbage"]}
executors: {v: [], "my rust": [cargo]}
`), "bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	err = c.Validate()
	for _, want := range []string{"roles", "log.level", "redis.url", "api.listen", "overlay.bootstrap", "/p2p/", "overlay.listen", "executors.v", `script type "my rust"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validation error lacks %q: %v", want, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	t.Setenv("HYPHAE_DATA_DIR", "/tmp/hy-test-dir")
	c := &config.Config{}
	c.Defaults()
	if c.DataDir != "/tmp/hy-test-dir" || c.API.Listen != "127.0.0.1:9652" || !*c.Overlay.MDNS ||
		len(c.Roles) != 2 || c.Bus.TimeoutAck == 0 || c.Runner.DrainGrace == 0 {
		t.Fatalf("defaults: %+v", c)
	}
}

// bus.plain turns every shortcut off; PlainOnly (tests, benchmarks) only
// those it names, and a name that is no shortcut is refused rather than
// leaving the shortcut on unnoticed.
func TestBusPlain(t *testing.T) {
	c, err := config.Parse([]byte("bus:\n  plain: true\n"), "plain.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, name := range config.Shortcuts {
		if !c.Bus.Off(name) {
			t.Errorf("bus.plain: shortcut %s still on", name)
		}
	}
	only := config.Bus{PlainOnly: []string{"acks"}}
	if !only.Off("acks") || only.Off("pair") {
		t.Errorf("PlainOnly [acks]: acks off %v, pair off %v; want true, false", only.Off("acks"), only.Off("pair"))
	}
	c.Bus.PlainOnly = []string{"acks", "ackz"}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `"ackz"`) {
		t.Fatalf("Validate = %v, want the unknown shortcut ackz refused", err)
	}
}

// HYPHAE_BUS_PLAIN=1 sets bus.plain, so an agent started by a test or a
// script takes the plain path without a config file.
func TestBusPlainFromEnvironment(t *testing.T) {
	t.Setenv(config.PlainEnv, "1")
	c := &config.Config{}
	c.Defaults()
	if !c.Bus.Plain {
		t.Fatalf("%s=1: bus.plain false", config.PlainEnv)
	}
}
