package node_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// runsFile is a file each run of a test job appends a line to, so a test
// can count how many times the job really ran.
func runsFile(t *testing.T) (path, script string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "runs")
	return path, fmt.Sprintf("echo ran >> %q", path)
}

// runs counts the lines of a runsFile.
func runs(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "ran\n")
}

// The same idempotency key twice: one run; the second answer is the first
// job, marked deduplicated; with other content it says so too.
func TestJobRunIdempotencyKeyRunsOnce(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	path, script := runsFile(t)
	p := map[string]any{"context": 1, "type": "sh", "script": script, "idempotency_key": "order-42", "wait": 30}
	var first, second, other wire.JobView
	a.call(t, "job.run", p, &first)
	a.call(t, "job.run", p, &second)
	if first.Status != "finished" || first.Deduplicated || first.IdempotencyKey != "order-42" {
		t.Fatalf("first answer %+v; want finished, not deduplicated, with its key", first)
	}
	if second.Key != first.Key || !second.Deduplicated || second.ContentDiffers || second.Status != "finished" {
		t.Fatalf("second answer %+v; want %s again, deduplicated, same content", second, first.Key)
	}
	p["script"] = "echo something else"
	a.call(t, "job.run", p, &other)
	if other.Key != first.Key || !other.Deduplicated || !other.ContentDiffers {
		t.Fatalf("answer for other content %+v; want %s, deduplicated, content_differs", other, first.Key)
	}
	if n := runs(t, path); n != 1 {
		t.Fatalf("the job ran %d times; want once", n)
	}
	if jobs := remoteJobs(t, a, 1); len(jobs) != 1 {
		t.Fatalf("context 1 holds %d jobs; want 1", len(jobs))
	}
}

// The record outlives the agent: after a restart on the same Redis the key
// still answers the first job.
func TestJobRunIdempotencyKeySurvivesRestart(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	path, script := runsFile(t)
	p := map[string]any{"context": 1, "type": "sh", "script": script, "idempotency_key": "nightly-2026-11-26", "wait": 30}
	var first, again wire.JobView
	a.call(t, "job.run", p, &first)
	a.stop(t)
	a2 := startAgent(t, agentOpts{dir: a.dir, redis: a.redis})
	a2.call(t, "job.run", p, &again)
	if again.Key != first.Key || !again.Deduplicated {
		t.Fatalf("after the restart: %+v; want %s, deduplicated", again, first.Key)
	}
	if n := runs(t, path); n != 1 {
		t.Fatalf("the job ran %d times; want once", n)
	}
}

// A job sent to another agent with the same key twice runs once there; the
// record lives at the origin, and the second answer is the origin's job.
func TestJobRunIdempotencyKeyAcrossAgents(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	path, script := runsFile(t)
	p := map[string]any{"to": b.peerID(), "context": 2, "type": "sh", "script": script, "idempotency_key": "pay-7"}
	var first, second wire.JobView
	a.call(t, "job.run", p, &first)
	a.call(t, "job.run", p, &second)
	if second.Key != first.Key || second.ContextID != first.ContextID || !second.Deduplicated {
		t.Fatalf("second answer %+v; want %s of context %d, deduplicated", second, first.Key, first.ContextID)
	}
	if got := waitJob(t, a, first.ContextID, first.Key); got.Status != "finished" {
		t.Fatalf("origin job %+v; want finished", got)
	}
	if jobs := endedJobs(t, b, 2, 1); len(jobs) != 1 {
		t.Fatalf("b's context 2 holds %d jobs; want 1", len(jobs))
	}
	if n := runs(t, path); n != 1 {
		t.Fatalf("the job ran %d times on b; want once", n)
	}
	var origin []wire.JobView
	a.call(t, "job.list", map[string]any{"context": first.ContextID}, &origin)
	if len(origin) != 1 {
		t.Fatalf("a's origin context holds %d jobs; want 1", len(origin))
	}
}

// The raw Redis contract: a job hash with idempotency_key pushed on a queue
// runs; a second one with the same key ends error, not run, duplicate_of
// naming the first, and its waiters wake (reply pushed).
func TestRawJobIdempotencyKeyDuplicateDoesNotRun(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	path, script := runsFile(t)
	ctx := context.Background()
	rdb := a.redis.Client(t, 1)
	push := func(key string) {
		t.Helper()
		if err := rdb.HSet(ctx, key, "script", script, "script_type", "sh", "status", "dispatched",
			"idempotency_key", "import-9").Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.LPush(ctx, "queue:sh", key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	push("job:1:500")
	if j := waitJob(t, a, 1, "job:1:500"); j.Status != "finished" {
		t.Fatalf("first raw job %+v; want finished", j)
	}
	push("job:1:501")
	if _, err := rdb.BLPop(ctx, 30*time.Second, store.ReplyKey("job:1:501")).Result(); err != nil {
		t.Fatalf("no reply for the duplicate: %v", err)
	}
	dup := waitJob(t, a, 1, "job:1:501")
	if dup.Status != "error" || dup.DuplicateOf != "job:1:500" || !strings.Contains(dup.Error, "job:1:500") {
		t.Fatalf("duplicate raw job %+v; want error, duplicate_of job:1:500", dup)
	}
	if n := runs(t, path); n != 1 {
		t.Fatalf("the raw jobs ran %d times; want once", n)
	}
	var dl []store.DeadLetter
	a.call(t, "deadletter.list", map[string]any{"context": 1}, &dl)
	if len(dl) != 0 {
		t.Fatalf("a duplicate is no poison, yet dead letters hold %+v", dl)
	}
}

const idemFlow = `name: once
context: 1
jobs:
  step: {type: sh, script: 'echo ran >> %q'}
`

// flow.create (flow run) and flow.start with a used key answer the first
// flow; nothing runs twice and the second flow is not started.
func TestFlowIdempotencyKeyStartsOnce(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	path := filepath.Join(t.TempDir(), "runs")
	text := fmt.Sprintf(idemFlow, path)
	run := wire.FlowCreateParams{FileContent: text, FileName: "once.yaml", Start: true, IdempotencyKey: "flow-1"}
	var first, second wire.FlowView
	a.call(t, "flow.create", run, &first)
	a.call(t, "flow.create", run, &second)
	if second.ID != first.ID || !second.Deduplicated || first.Deduplicated {
		t.Fatalf("second flow run answered flow %d (deduplicated %v); want flow %d, deduplicated", second.ID, second.Deduplicated, first.ID)
	}
	waitFlow(t, a, &first)

	var x, y, sx, sy wire.FlowView
	a.call(t, "flow.create", wire.FlowCreateParams{FileContent: text, FileName: "once.yaml"}, &x)
	a.call(t, "flow.create", wire.FlowCreateParams{FileContent: text, FileName: "once.yaml"}, &y)
	a.call(t, "flow.start", map[string]any{"context": 1, "id": x.ID, "idempotency_key": "start-1"}, &sx)
	a.call(t, "flow.start", map[string]any{"context": 1, "id": y.ID, "idempotency_key": "start-1"}, &sy)
	if sy.ID != x.ID || !sy.Deduplicated || !sy.ContentDiffers {
		t.Fatalf("second flow.start answered flow %d (%+v); want flow %d, deduplicated, other content", sy.ID, sy.Deduplicated, x.ID)
	}
	waitFlow(t, a, &sx)
	if n := runs(t, path); n != 2 {
		t.Fatalf("the flows' job ran %d times; want 2 (one flow run, one flow start)", n)
	}
	var ystat wire.FlowView
	a.call(t, "flow.status", map[string]any{"context": 1, "id": y.ID}, &ystat)
	if ystat.StartedAt != 0 || ystat.Terminal() {
		t.Fatalf("flow %d, whose start was a duplicate, is %s (started at %d); want it never started",
			y.ID, ystat.Status, ystat.StartedAt)
	}
}
