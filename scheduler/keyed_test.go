package scheduler_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler"
)

// concurrency_key and max_in_flight parse, and a run's jobs carry the key
// with its ${VAR}s filled in from the flow's env and the job's own.
func TestFlowConcurrencyKeyReachesJobs(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	fl := e.create(t, s, `
env: {SITE: paris, DEV: flow-level}
jobs:
  a: {type: sh, script: 'true', concurrency_key: 'dev-${SITE}-${DEV}', env: {DEV: "7"}}
  b: {type: sh, script: 'true', concurrency_key: pool, max_in_flight: 3}
  c: {type: sh, script: 'true'}
`)
	want := map[uint64][2]string{0: {"dev-paris-7", "1"}, 1: {"pool", "3"}, 2: {"", ""}}
	for i, id := range fl.Jobs {
		j, err := e.st.LoadJobKey(e.ctx, ctxID, store.JobKey(1, id))
		if err != nil {
			t.Fatal(err)
		}
		got := [2]string{j.Extra["concurrency_key"], j.Extra["max_in_flight"]}
		if got != want[uint64(i)] {
			t.Errorf("job %s: concurrency_key, max_in_flight = %q, want %q", j.Name, got, want[uint64(i)])
		}
	}
}

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
		_, _, err := scheduler.Parse([]byte(c.text), "flow.yaml", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
