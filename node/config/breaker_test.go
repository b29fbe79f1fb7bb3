package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/config"
)

// The breaker section: documented defaults, -1 turns the breakers off,
// unknown keys and bad values are errors that name the key.
func TestBreakerSection(t *testing.T) {
	c := &config.Config{}
	c.Defaults()
	if b := c.Breaker; b.Threshold != 5 || b.Window != time.Minute || b.Cooldown != 30*time.Second || !b.On() {
		t.Fatalf("breaker defaults %+v; want 5, 1m, 30s, on", b)
	}
	c, err := config.Parse([]byte("breaker:\n  threshold: -1\n  cooldown: 2s\n"), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if b := c.Breaker; b.On() || b.Cooldown != 2*time.Second || c.Validate() != nil {
		t.Fatalf("threshold -1: %+v (validate: %v); want off, cooldown 2s", b, c.Validate())
	}
	if _, err := config.Parse([]byte("breaker:\n  treshold: 3\n"), "b.yaml"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a misspelt key: %v, want an error naming line 2", err)
	}
	c, err = config.Parse([]byte("breaker: {threshold: -2, window: -1s, cooldown: -1s}\n"), "b.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	err = c.Validate()
	for _, want := range []string{"breaker.threshold", "breaker.window", "breaker.cooldown"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("validate = %v; want it to name %s", err, want)
		}
	}
}
