package scheduler_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

// rerunFlow is a → b → c, and x beside them; each job appends its name to
// $RUNS/<job> and gives a result; c fails until the file $OK exists.
func rerunFlow(dir string) string {
	return fmt.Sprintf(`
env: {RUNS: %[1]s, OK: %[1]s/ok}
jobs:
  a: {type: sh, script: 'echo a >> "$RUNS/a"; echo "v=a$(wc -l < "$RUNS/a")" >> "$HYPHAE_RESULT"'}
  b: {type: sh, needs: a, script: 'echo b >> "$RUNS/b"; echo "v=$HYPHAE_IN_A_V" >> "$HYPHAE_RESULT"'}
  c: {type: sh, needs: b, script: 'echo c >> "$RUNS/c"; test -e "$OK" || exit 3; echo "v=$HYPHAE_IN_B_V" >> "$HYPHAE_RESULT"'}
  x: {type: sh, script: 'echo x >> "$RUNS/x"'}
`, dir)
}

func runs(t *testing.T, dir, job string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, job))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), job)
}

// A rerun without --from runs the failed job and reuses what completed:
// a, b and x do not run again, and c sees b's old result.
func TestRerunFromFailedReusesFinishedJobs(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	dir := t.TempDir()
	old := e.wait(t, s, e.run(t, s, rerunFlow(dir)).ID)
	wantFlow(t, old, model.FlowError)
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fl, err := s.Rerun(e.ctx, ctxID, old.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	for job, n := range map[string]int{"a": 1, "b": 1, "x": 1, "c": 2} {
		if got := runs(t, dir, job); got != n {
			t.Errorf("job %s ran %d times in both runs, want %d", job, got, n)
		}
	}
	if st.Result["c.v"] != "a1" || st.Result["a.v"] != "a1" {
		t.Fatalf("result %v: want c to see the reused results of a and b", st.Result)
	}
	wantStates(t, st, map[string]model.NodeState{"a": model.NodeCompleted, "b": model.NodeCompleted})
}

// --from b reruns b and what depends on it, reusing a.
func TestRerunFromJob(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	old := e.wait(t, s, e.run(t, s, rerunFlow(dir)).ID)
	wantFlow(t, old, model.FlowFinished)
	if _, err := s.Rerun(e.ctx, ctxID, old.ID, "", 1); err == nil {
		t.Fatal("a rerun of a flow where nothing failed, without --from, was taken")
	}
	fl, err := s.Rerun(e.ctx, ctxID, old.ID, "b", 1)
	if err != nil {
		t.Fatal(err)
	}
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	for job, n := range map[string]int{"a": 1, "x": 1, "b": 2, "c": 2} {
		if got := runs(t, dir, job); got != n {
			t.Errorf("job %s ran %d times in both runs, want %d", job, got, n)
		}
	}
	_, err = s.Rerun(e.ctx, ctxID, old.ID, "nope", 1)
	if !errors.Is(err, scheduler.ErrNoSuchJob) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("--from nope: %v, want ErrNoSuchJob naming it", err)
	}
}

// A job that a compensation undid runs again in a rerun.
func TestRerunRunsUndoneJobsAgain(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	dir := t.TempDir()
	old := e.wait(t, s, e.run(t, s, sagaFlow(filepath.Join(dir, "log"), "exit 3", undoB)).ID)
	if old.Compensation != scheduler.Compensated {
		t.Fatalf("compensation %q", old.Compensation)
	}
	fl, err := s.Rerun(e.ctx, ctxID, old.ID, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	e.wait(t, s, fl.ID)
	if n := e.w.count("a"); n != 2 {
		t.Fatalf("a ran %d times, want 2: its compensation undid it", n)
	}
	if n := e.w.count("x"); n != 1 {
		t.Fatalf("x ran %d times, want 1: reused", n)
	}
}
