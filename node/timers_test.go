package node_test

import (
	"strconv"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A delayed job for another agent waits at its origin: nothing reaches
// the other agent before its time, and it runs there, once, after it.
func TestDelayedJobToAnotherAgent(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "delay": 2,
		"script": `echo "t=$(date +%s)" >> "$HYPHAE_RESULT"`}, &j)
	if j.Status != "dispatched" || j.RunAt == 0 {
		t.Fatalf("submitted: %+v, want dispatched with a run_at", j)
	}
	var early []wire.JobView
	b.call(t, "job.list", map[string]any{"context": 2}, &early)
	if len(early) != 0 {
		t.Fatalf("the other agent got the job before its time: %+v", early)
	}
	got := waitJob(t, a, j.ContextID, j.Key)
	ran, _ := strconv.ParseFloat(got.Result["t"], 64)
	if got.Status != "finished" || ran < float64(int64(j.RunAt)) {
		t.Fatalf("origin job %+v: want finished, started at or after run_at %.3f", got, j.RunAt)
	}
	if jobs := endedJobs(t, b, 2, 1); len(jobs) != 1 || jobs[0].Status != "finished" {
		t.Fatalf("the other agent's jobs: %+v", jobs)
	}
}
