package config_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
)

// A misspelt key is refused naming it as written (its dotted path), the
// file, its line and the closest valid key, at any depth; a key nothing is
// close to lists the keys valid there.
func TestUnknownKeyNamesPathLineAndSuggestion(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"roles: [runner]\nrunner:\n  concurrancy: 4\n",
			`config h.yaml: line 3: unknown key "runner.concurrancy" (did you mean "runner.concurrency"?)`},
		{"dat_dir: /x\n",
			`config h.yaml: line 1: unknown key "dat_dir" (did you mean "data_dir"?)`},
		{"runner:\n  isolation:\n    remote: contained\n    pid_max: 3\n",
			`config h.yaml: line 4: unknown key "runner.isolation.pid_max" (did you mean "runner.isolation.pids_max"?)`},
		{"runner:\n  types:\n    python: {max_in_flght: 2}\n",
			`config h.yaml: line 3: unknown key "runner.types.python.max_in_flght" (did you mean "runner.types.python.max_in_flight"?)`},
		{"overlay: {nat_portmap: false}\n",
			`config h.yaml: line 1: unknown key "overlay.nat_portmap" (did you mean "overlay.nat_port_map"?)`},
		{"base: &b {treshold: 3}\n",
			`config h.yaml: line 1: unknown key "base"`},
		{"breaker:\n  <<: {treshold: 3}\n",
			`config h.yaml: line 2: unknown key "breaker.treshold" (did you mean "breaker.threshold"?)`},
		{"log:\n  colour: true\n",
			`config h.yaml: line 2: unknown key "log.colour" (in log: level, format)`},
	} {
		_, err := config.Parse([]byte(c.yaml), "h.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v\nwant %s", c.yaml, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "not found in type") {
			t.Errorf("Parse(%q) says yaml's %v", c.yaml, err)
		}
	}
}

// Every unknown key is reported, each on its own line, not only the first.
func TestUnknownKeysAllReported(t *testing.T) {
	_, err := config.Parse([]byte("runner:\n  concurrancy: 4\nbus:\n  timout: 1m\n"), "h.yaml")
	if err == nil {
		t.Fatal("two misspelt keys accepted")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"runner.concurrancy"`) || !strings.Contains(lines[1], `"bus.timout" (did you mean "bus.timeout"?)`) {
		t.Fatalf("err = %v", err)
	}
}

// Valid configs are not refused by the key check: anchors, merge keys,
// maps of script types and executors, and an empty file.
func TestKnownKeysAccepted(t *testing.T) {
	for _, y := range []string{
		"",
		"runner:\n  types:\n    python: {max_in_flight: 2}\nexecutors:\n  v: [v, run, \"{file}\"]\n",
		"bus: &b {timeout: 1m}\nsupervisor:\n  <<: {runner_grace: 30s}\n",
		"retention: {log_bytes: 256KiB}\n",
	} {
		if _, err := config.Parse([]byte(y), "h.yaml"); err != nil {
			t.Errorf("Parse(%q) = %v", y, err)
		}
	}
}
