package flowfile_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

func TestFlowConcurrencyKeyErrors(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"limit without key", "jobs:\n  a: {type: sh, script: x, max_in_flight: 2}\n",
			`flow.yaml:2: job "a": max_in_flight needs a concurrency_key`},
		{"bad limit", "jobs:\n  a: {type: sh, script: x, concurrency_key: k, max_in_flight: 0}\n",
			`flow.yaml:2: job "a": max_in_flight "0": want a whole number from 1 to 100000`},
		{"unset variable", "jobs:\n  a: {type: sh, script: x, concurrency_key: 'dev-${NOPE}'}\n",
			`flow.yaml:2: job "a": concurrency_key names ${NOPE}, which neither the flow's env nor the job's sets`},
		{"bad variable", "jobs:\n  a: {type: sh, script: x, concurrency_key: 'dev-${1x}'}\n",
			`write variables as ${NAME}`},
		{"key too long", "jobs:\n  a: {type: sh, script: x, concurrency_key: " + strings.Repeat("k", 201) + "}\n",
			`concurrency_key is 201 bytes, at most 200`},
	} {
		_, _, err := flowfile.Parse([]byte(c.text), "flow.yaml", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
