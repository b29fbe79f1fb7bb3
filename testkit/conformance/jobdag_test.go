package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The job DAG on plain queued jobs (seed 000 §2.3 state diagram, seed 001
// RunnerJob and JobStatus): `dependends` are ids of jobs of the context
// that must finish before a job starts, `prerequisites` names of external
// prerequisites (docs/design.md, "How Hyphae reads the specifications it follows": met when prereq:<name> exists in the
// context DB). A job whose DAG is not met sits in
// waiting_for_prerequisites, starts when it is, and ends error when it
// cannot be ("waiting_for_prerequisites --> error : timeout /
// impossible"). Jobs are written the seed way: HSET job:<caller>:<id>,
// LPUSH queue:<script_type>.
// Contexts used here: 15 (plain jobs), 12 (a flow).

const dagCtx = 15

// dagContext makes context 15, once per test binary, and returns its DB.
func dagContext(t *testing.T) *redis.Client {
	t.Helper()
	c := db(t, dagCtx)
	if n, _ := c.Exists(t.Context(), fmt.Sprintf("context:%d", dagCtx)).Result(); n == 0 {
		newContext(t, dagCtx)
	}
	return c
}

// seedJob writes job:1:<id> as a seed client does (every field of seed
// 001, lists as JSON) and, when queue is set, LPUSHes it on
// queue:<script_type>.
func seedJob(t *testing.T, c *redis.Client, ctxID, id int, script, deps, prereqs string, queue bool) string {
	t.Helper()
	key := fmt.Sprintf("job:1:%d", id)
	ctx := t.Context()
	if err := c.HSet(ctx, key, "id", id, "caller_id", 1, "context_id", ctxID, "script", script,
		"script_type", "python", "timeout", 60, "retries", 0, "env_vars", "{}", "result", "{}",
		"prerequisites", prereqs, "dependends", deps, "status", "dispatched").Err(); err != nil {
		t.Fatal(err)
	}
	if queue {
		if err := c.LPush(ctx, "queue:python", key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return key
}

// gate is a file a job waits for before it ends, and the python of such
// a job, which also appends name to the order file. It needs the jobs to
// run on this machine.
func gate(t *testing.T) (open func(), script func(name string) string, order string) {
	t.Helper()
	if !target.local {
		t.Skip("needs the jobs to run on this machine (CONFORMANCE_LOCAL=1)")
	}
	dir := t.TempDir()
	g, order := filepath.Join(dir, "gate"), filepath.Join(dir, "order")
	open = func() {
		if err := os.WriteFile(g, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script = func(name string) string {
		return fmt.Sprintf("import os, time\nwhile not os.path.exists(%q): time.sleep(0.05)\nopen(%q, 'a').write(%q)\n",
			g, order, name+"\n")
	}
	return open, script, order
}

// status reads a job's status and error from its hash.
func status(t *testing.T, c *redis.Client, key string) (string, string) {
	t.Helper()
	v, err := c.HMGet(t.Context(), key, "status", "error").Result()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := v[0].(string)
	e, _ := v[1].(string)
	return st, e
}

// awaitStatus waits until the job's status leaves `from` (the statuses
// it may still pass through) and returns it.
func awaitStatus(t *testing.T, c *redis.Client, key string, from ...string) (string, string) {
	t.Helper()
	var st, e string
	eventually(t, key+" to leave "+fmt.Sprint(from), func() bool {
		st, e = status(t, c, key)
		for _, f := range from {
			if st == f {
				return false
			}
		}
		return true
	})
	return st, e
}

// Seed 001 RunnerJob.dependends ("IDs of other RunnerJob objects that
// must finish before this job can start") and JobStatus
// waiting_for_prerequisites ("Has dependends that are not yet
// finished"): job 401, queued before 400, does not start while 400 runs;
// its hash says waiting_for_prerequisites; it runs once 400 finished.
func TestDependendsWaitForUpstream(t *testing.T) {
	c := dagContext(t)
	release, script, order := gate(t)
	after := seedJob(t, c, dagCtx, 401, script("401"), "[400]", "[]", true)
	before := seedJob(t, c, dagCtx, 400, script("400"), "[]", "[]", true)
	if st, _ := awaitStatus(t, c, before, "dispatched"); st != "started" {
		t.Fatalf("job 400 is %q, want started (it waits for the gate)", st)
	}
	if st, _ := awaitStatus(t, c, after, "dispatched"); st != "waiting_for_prerequisites" {
		t.Fatalf("job 401 is %q while job 400 runs, want waiting_for_prerequisites", st)
	}
	release()
	if st, e := awaitStatus(t, c, after, "dispatched", "waiting_for_prerequisites", "started"); st != "finished" {
		t.Fatalf("job 401 ended %q (%s), want finished", st, e)
	}
	if b, _ := os.ReadFile(order); string(b) != "400\n401\n" {
		t.Fatalf("the jobs ran in the order %q, want 400 then 401", b)
	}
}

// Seed 001 RunnerJob.prerequisites ("Human-readable IDs of external
// prerequisites (e.g., files, other services)", []string) and seed 000
// "dispatched --> waiting_for_prerequisites : has prereqs", "--> started :
// prereqs met": a job naming file:/srv/data.csv waits, visibly, reads back
// with its names, and starts once prereq:file:/srv/data.csv is SET.
func TestPrerequisiteWaitsUntilMet(t *testing.T) {
	c := dagContext(t)
	key := seedJob(t, c, dagCtx, 410, "print('ok')", "[]", `["file:/srv/data.csv"]`, true)
	if st, e := awaitStatus(t, c, key, "dispatched"); st != "waiting_for_prerequisites" {
		t.Fatalf("job 410 is %q (%s), want waiting_for_prerequisites", st, e)
	}
	var j Job
	call(t, "job.load", map[string]any{"context_id": dagCtx, "caller_id": 1, "id": 410}, &j)
	if len(j.Prerequisites) != 1 || j.Prerequisites[0] != "file:/srv/data.csv" || j.Status != "waiting_for_prerequisites" {
		t.Fatalf("job.load: prerequisites %q, status %q", j.Prerequisites, j.Status)
	}
	if err := c.Set(t.Context(), "prereq:file:/srv/data.csv", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if st, e := awaitStatus(t, c, key, "waiting_for_prerequisites", "started"); st != "finished" {
		t.Fatalf("job 410 ended %q (%s) once its prerequisite was met, want finished", st, e)
	}
}

// Seed 000 "waiting_for_prerequisites --> error : timeout / impossible":
// a job whose upstream ended error can never start; it ends error, and so
// does the job that waits for it. Job 431 is sent with job.run as the
// coordinator sends jobs (seed 002), 432 written the seed way.
func TestImpossibleDependencyEndsError(t *testing.T) {
	c := dagContext(t)
	seedJob(t, c, dagCtx, 430, "import sys\nsys.exit(3)", "[]", "[]", false)
	last := seedJob(t, c, dagCtx, 432, "print('never')", "[431]", "[]", true)
	call(t, "job.run", map[string]any{"job": map[string]any{"id": 431, "caller_id": 1, "context_id": dagCtx,
		"script": "print('never')", "script_type": "python", "timeout": 60, "dependends": []int{430}}}, nil)
	if err := c.LPush(t.Context(), "queue:python", "job:1:430").Err(); err != nil {
		t.Fatal(err)
	}
	if st, _ := awaitStatus(t, c, "job:1:430", "dispatched", "started"); st != "error" {
		t.Fatalf("job 430 ended %q, want error", st)
	}
	for key, up := range map[string]int{"job:1:431": 430, last: 431} {
		st, e := awaitStatus(t, c, key, "dispatched", "waiting_for_prerequisites")
		if want := "impossible: job " + strconv.Itoa(up) + " ended error"; st != "error" || e != want {
			t.Errorf("%s ended %q with error %q, want error %q", key, st, e, want)
		}
	}
}

// Seed 001 FlowStatus error ("One or more jobs failed; flow aborted") and
// seed 000 "waiting_for_prerequisites --> error": a flow made the seed way
// whose first job fails ends error, and the job that waited for it ends
// error too instead of waiting for ever.
func TestFailedFlowEndsWaitingJobs(t *testing.T) {
	newContext(t, 12)
	c := db(t, 12)
	seedJob(t, c, 12, 51, "import sys\nsys.exit(1)", "[]", "[]", false)
	waiting := seedJob(t, c, 12, 52, "print('never')", "[51]", "[]", false)
	call(t, "flow.create", map[string]any{"context_id": 12, "flow": map[string]any{"id": 55, "caller_id": 1,
		"context_id": 12, "jobs": []int{51, 52}, "env_vars": map[string]string{}}}, nil)
	var started bool
	call(t, "flow.start", map[string]any{"context_id": 12, "id": 55}, &started)
	if f := waitFlow(t, 12, 55); f.Status != "error" {
		t.Fatalf("flow 55 ended %q, want error", f.Status)
	}
	if st, e := awaitStatus(t, c, waiting, "dispatched", "waiting_for_prerequisites"); st != "error" || e == "" {
		t.Fatalf("job 52 of the failed flow is %q (%q), want error with a reason", st, e)
	}
}
