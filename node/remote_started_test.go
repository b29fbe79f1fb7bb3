package node_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A job sent to another agent shows as started at its origin while it runs
// there, not dispatched until its result: the target's ack says so. A job
// that waits there behind another stays dispatched at home until it
// starts, then shows started too; both end finished.
func TestRemoteJobShowsStartedAtTheOrigin(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{slots: 1})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	dir := t.TempDir()
	gate := func(name string) string { return filepath.Join(dir, name) }
	run := func(name string) wire.JobView {
		var j wire.JobView
		a.call(t, "job.run", map[string]any{"to": b.peerID(), "context": 2, "type": "sh",
			"script": "while [ ! -e " + gate(name) + " ]; do sleep 0.05; done"}, &j)
		return j
	}
	status := func(j wire.JobView) string {
		var got wire.JobView
		a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &got)
		return got.Status
	}

	first := run("first")
	eventually(t, 30*time.Second, "the first job started at home", func() bool { return status(first) == "started" })
	second := run("second")
	// b takes one job at a time: the second waits there, and home knows it
	// was delivered but not that it runs.
	eventually(t, 30*time.Second, "b queued the second job", func() bool {
		var jobs []wire.JobView
		b.call(t, "job.list", map[string]any{"context": 2}, &jobs)
		return len(jobs) == 2
	})
	if s := status(second); s != "dispatched" {
		t.Fatalf("the second job, queued at b behind the first, is %q at home; want dispatched", s)
	}

	touch(t, gate("first"))
	if got := waitJob(t, a, first.ContextID, first.Key); got.Status != "finished" {
		t.Fatalf("first job = %+v", got)
	}
	eventually(t, 30*time.Second, "the second job started at home", func() bool { return status(second) == "started" })
	touch(t, gate("second"))
	if got := waitJob(t, a, second.ContextID, second.Key); got.Status != "finished" {
		t.Fatalf("second job = %+v", got)
	}
}

func touch(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
