package config_test

import (
	"maps"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
)

// runner.max_in_flight_per_context and runner.types.<type>.max_in_flight
// decode strictly, default to no cap, and bad values are refused naming
// the key.
func TestRunnerLimitsConfig(t *testing.T) {
	c, err := config.Parse([]byte("runner:\n  max_in_flight_per_context: 3\n  types:\n    python: {max_in_flight: 2}\n    sh: {}\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Defaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := config.TypeLimits(c.Runner.Types); c.Runner.MaxInFlightPerContext != 3 || !maps.Equal(got, map[string]int{"python": 2}) {
		t.Fatalf("per context %d, type limits %v", c.Runner.MaxInFlightPerContext, got)
	}
	if _, err := config.Parse([]byte("runner:\n  types:\n    python: {max_inflight: 2}\n"), "c.yaml"); err == nil ||
		!strings.Contains(err.Error(), "max_inflight") {
		t.Fatalf("a misspelt key: %v", err)
	}
	for text, want := range map[string]string{
		"runner:\n  max_in_flight_per_context: -1\n":           "runner.max_in_flight_per_context",
		"runner:\n  types:\n    python: {max_in_flight: -2}\n": "runner.types.python.max_in_flight",
		"runner:\n  types:\n    'a b': {max_in_flight: 1}\n":   `runner.types: script type "a b"`,
	} {
		c, err := config.Parse([]byte(text), "c.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c.Defaults()
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error naming %s", text, err, want)
		}
	}
}
