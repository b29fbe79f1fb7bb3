package node_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// job.run to any: the job goes to the runner registered in the job's
// context that is up and runs its script type, and runs there, and the
// origin's record names that agent. A job of a type that no registered
// runner up runs waits unsent; a stop ends it at home and withdraws its
// message.
func TestJobRunToAny(t *testing.T) {
	t.Parallel()
	a, b, c := specialTrio(t)
	a.call(t, "context.create", map[string]any{"id": 4}, nil)
	a.call(t, "runner.create", map[string]any{"context": 4, "pubkey": c.peerID()}, nil)
	a.call(t, "runner.create", map[string]any{"context": 4, "pubkey": b.peerID(), "script_types": []string{"nobody-runs-this"}}, nil)

	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 4, "type": "special",
		"script": `echo "who=special" >> "$HYPHAE_RESULT"`}, &j)
	got := waitJob(t, a, j.ContextID, j.Key)
	if got.Status != "finished" || got.Result["who"] != "special" || got.Runner != c.peerID() {
		t.Fatalf("origin job = %+v; want it finished by c %s", got, c.peerID())
	}
	if jobs := endedJobs(t, c, 4, 1); jobs[0].Status != "finished" {
		t.Errorf("c's context 4 jobs = %+v, want one finished", jobs)
	}
	if jobs := remoteJobs(t, b, 4); len(jobs) != 0 {
		t.Errorf("b, which does not run the type, got %d jobs", len(jobs))
	}

	var lost wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 4, "type": "nobody-runs-this", "script": "true"}, &lost)
	if lost.Status != "dispatched" || lost.Runner != "" {
		t.Fatalf("job of a type no agent runs = %+v; want it dispatched to nobody yet", lost)
	}
	var out map[string]string
	a.call(t, "job.stop", map[string]any{"context": lost.ContextID, "key": lost.Key}, &out)
	if out["where"] != "outbox" {
		t.Fatalf("job.stop = %v; want it stopped in the outbox", out)
	}
	if got := waitJob(t, a, lost.ContextID, lost.Key); got.Status != "error" || !strings.Contains(got.Error, "before any agent took it") {
		t.Fatalf("stopped job = %+v", got)
	}
	rdb := a.redis.Client(t, int(lost.ContextID))
	eventually(t, 30*time.Second, "the outbox to withdraw the message", func() bool {
		n, err := rdb.ZCard(context.Background(), "outbox").Result()
		return err == nil && n == 0
	})
}

// job.run to any on an agent alone: it runs the job itself, through the
// bus as for any agent; the record shows it started, and job.stop reaches
// it there.
func TestJobRunToAnyAlone(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"to": wire.ToAny, "context": 1, "type": "sh", "script": "echo here; sleep 60"}, &j)
	eventually(t, 30*time.Second, "the job to show started", func() bool {
		var got wire.JobView
		a.call(t, "job.load", map[string]any{"context": j.ContextID, "key": j.Key}, &got)
		return got.Status == "started"
	})
	// Its log is read where it runs, here, through the same bridge path.
	eventually(t, 30*time.Second, "the running job's line", func() bool {
		lv := readLogs(t, a, j.ContextID, j.Key, 0)
		return lv.Source == "runner" && slices.Equal(lv.Lines, []string{"here"})
	})
	var out map[string]string
	a.call(t, "job.stop", map[string]any{"context": j.ContextID, "key": j.Key}, &out)
	if out["where"] != a.peerID() {
		t.Fatalf("job.stop = %v; want the stop sent to the agent the job went to (itself)", out)
	}
	if got := waitJob(t, a, j.ContextID, j.Key); got.Status != "error" || got.Error != "stopped" || got.Runner != a.peerID() {
		t.Fatalf("stopped job = %+v", got)
	}
}

// job.run to runner:<id> sends the job to the agent that runner record of
// the context names (here, b; a record of this agent itself, or one
// marked local, runs it here, as a flow job naming it would), and a
// record or context that does not exist is a clear error.
func TestJobRunToRunnerRecord(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 2}, nil)
	var there, here, local wire.RunnerView
	a.call(t, "runner.create", map[string]any{"context": 2, "pubkey": b.peerID()}, &there)
	a.call(t, "runner.create", map[string]any{"context": 2, "pubkey": a.peerID()}, &here)
	a.call(t, "runner.create", map[string]any{"context": 2, "pubkey": b.peerID(), "local": true}, &local)

	for _, c := range []struct {
		ref    string
		runner string
	}{{there.Ref, b.peerID()}, {here.Ref, ""}, {local.Ref, ""}} {
		var j wire.JobView
		a.call(t, "job.run", map[string]any{"to": c.ref, "context": 2, "type": "sh", "wait": 60,
			"script": "true"}, &j)
		if j.Status != "finished" || j.Runner != c.runner {
			t.Fatalf("job to %s = %+v; want it finished, runner %q", c.ref, j, c.runner)
		}
	}
	for to, want := range map[string]string{
		"runner:9": "context 2 has no runner:9 (hyphae runner list 2)",
		"runner:x": `"runner:x": want runner:<id>`,
	} {
		var j wire.JobView
		err := a.client.Call(context.Background(), "job.run", map[string]any{"to": to, "context": 2, "type": "sh", "script": "true"}, &j)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("job.run to %s: %v, want an error containing %q", to, err, want)
		}
	}
	err := a.client.Call(context.Background(), "job.run", map[string]any{"to": "runner:1", "context": 5, "type": "sh", "script": "true"}, nil)
	if err == nil || !strings.Contains(err.Error(), "this agent has no context 5") {
		t.Fatalf("job.run to runner:1 of a context this agent lacks: %v", err)
	}
}
