package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// delayedOut is what `hyphae job run --json` prints of a delayed job.
type delayedOut struct {
	Key    string  `json:"key"`
	Status string  `json:"status"`
	RunAt  float64 `json:"run_at"`
}

// runDelayed submits a job that appends its start time (unix s) to
// marks/ran, due in d, and returns it.
func runDelayed(t *testing.T, a *flowAgent, marks string, d time.Duration) delayedOut {
	t.Helper()
	var j delayedOut
	decode(t, a.hy(t, "job", "run", "--context", "1", "--in", d.String(), "--json",
		"--env", "MARKS="+marks, "--script", `date +%s >> "$MARKS/ran"`), &j)
	if j.Status != "dispatched" || j.RunAt == 0 {
		t.Fatalf("delayed job %+v: want dispatched with a run_at", j)
	}
	return j
}

// starts reads the start times the job wrote.
func starts(t *testing.T, marks string) []int64 {
	t.Helper()
	return readStarts(t, filepath.Join(marks, "ran"))
}

// readStarts reads unix times, one a line.
func readStarts(t *testing.T, path string) []int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, l := range strings.Fields(string(b)) {
		n, _ := strconv.ParseInt(l, 10, 64)
		out = append(out, n)
	}
	return out
}

// waitFinished waits for job key of context 1 to finish.
func waitFinished(t *testing.T, a *flowAgent, key string) {
	t.Helper()
	eventually(t, 60*time.Second, "job "+key+" finished", func() bool {
		out, _, err := hyTry("job", "status", "1", key, "--json", "--data-dir", a.dir)
		return err == nil && strings.Contains(out, `"status": "finished"`)
	})
}

// A delayed job outlives kill -9 of the agent and its redis-server (the
// whole process group) before it is due: it does not run early, and after
// the restart it runs once, at or after its time.
func TestDelayedJobSurvivesKill9OfAgentAndRedis(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	marks := t.TempDir()
	j := runDelayed(t, a, marks, 4*time.Second)
	a.proc.kill9()
	if s := starts(t, marks); len(s) != 0 {
		t.Fatalf("the job ran before its time: %v", s)
	}
	a.restart(t)
	t.Cleanup(func() {
		if t.Failed() {
			out, errOut, _ := hyTry("job", "status", "1", j.Key, "--json", "--data-dir", a.dir)
			t.Logf("status: %s %s\nlog:\n%s", out, errOut, a.proc.log)
		}
	})
	waitFinished(t, a, j.Key)
	s := starts(t, marks)
	if len(s) != 1 || float64(s[0]) < float64(int64(j.RunAt)) {
		t.Fatalf("start times %v: want one, at or after run_at %.3f", s, j.RunAt)
	}
}

// A delayed job outlives kill -9 of the agent's redis-server alone (the
// agent restarts it): it runs once, at or after its time.
func TestDelayedJobSurvivesKill9OfRedis(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	marks := t.TempDir()
	j := runDelayed(t, a, marks, 3*time.Second)
	b, err := os.ReadFile(filepath.Join(a.dir, "redis", "redis.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFinished(t, a, j.Key)
	s := starts(t, marks)
	if len(s) != 1 || float64(s[0]) < float64(int64(j.RunAt)) {
		t.Fatalf("start times %v: want one, at or after run_at %.3f", s, j.RunAt)
	}
}

// A flow's sleep step outlives kill -9 of its agent (with its
// redis-server) in the middle of the wait: after the restart the flow
// goes on, and the step after the sleep starts no earlier than the sleep
// allowed.
func TestFlowSleepSurvivesKill9(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	marks := t.TempDir()
	flow := writeFlow(t, `name: nap
context: 1
env: {MARKS: `+marks+`}
jobs:
  before: {type: sh, script: 'date +%s > "$MARKS/before"'}
  nap:    {sleep: 4s, needs: before}
  after:  {type: sh, needs: nap, script: 'date +%s >> "$MARKS/after"'}
`)
	var f flowOut
	decode(t, a.hy(t, "flow", "run", flow, "--json"), &f)
	id := strconv.FormatUint(f.ID, 10)
	eventually(t, 30*time.Second, "the sleep step under way", func() bool {
		out, _, err := hyTry("flow", "status", id, "--context", "1", "--json", "--data-dir", a.dir)
		if err != nil {
			return false
		}
		decode(t, out, &f)
		return f.job(t, "nap").Status == "dispatched"
	})
	a.proc.kill9()
	a.restart(t)
	eventually(t, 60*time.Second, "the flow to end after the restart", func() bool {
		out, _, err := hyTry("flow", "status", id, "--context", "1", "--json", "--data-dir", a.dir)
		if err != nil {
			return false
		}
		decode(t, out, &f)
		return f.terminal()
	})
	if f.Status != "finished" {
		t.Fatalf("flow ended %s: %s\n%+v", f.Status, f.Error, f.Jobs)
	}
	b, _ := os.ReadFile(filepath.Join(marks, "before"))
	before, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	after := readStarts(t, filepath.Join(marks, "after"))
	if len(after) != 1 || after[0] < before+4 {
		t.Fatalf("after ran at %v, want once, at least 4 s after before (%d)", after, before)
	}
}

// hyphae job stop ends a delayed job that is still waiting at once.
func TestDelayedJobStopsAtOnce(t *testing.T) {
	t.Parallel()
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	j := runDelayed(t, a, t.TempDir(), time.Hour)
	a.hy(t, "job", "stop", "1", j.Key)
	eventually(t, 30*time.Second, "the stopped job ended", func() bool {
		out, _, err := hyTry("job", "status", "1", j.Key, "--json", "--data-dir", a.dir)
		return err == nil && strings.Contains(out, `"status": "error"`)
	})
}
