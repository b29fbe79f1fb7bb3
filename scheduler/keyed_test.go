package scheduler_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
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
		j, err := e.st.Jobs.LoadJobKey(e.ctx, ctxID, store.JobKey(1, id))
		if err != nil {
			t.Fatal(err)
		}
		got := [2]string{j.Extra["concurrency_key"], j.Extra["max_in_flight"]}
		if got != want[uint64(i)] {
			t.Errorf("job %s: concurrency_key, max_in_flight = %q, want %q", j.Name, got, want[uint64(i)])
		}
	}
}
