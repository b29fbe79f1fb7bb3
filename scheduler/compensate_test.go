package scheduler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

// sagaFlow is a → b → c, plus x beside them; a and b undo themselves by
// appending "undo-<job> <its id result>" to $LOG; c runs cScript.
func sagaFlow(log, cScript, bUndo string) string {
	return fmt.Sprintf(`
env: {LOG: %s}
jobs:
  a:
    type: sh
    script: 'echo "id=A1" >> "$HYPHAE_RESULT"'
    compensate: {type: sh, script: 'echo "undo-a $HYPHAE_RESULT_ID" >> "$LOG"'}
  b:
    type: sh
    needs: a
    script: 'echo "id=B1" >> "$HYPHAE_RESULT"'
    compensate: {type: sh, retries: 1, script: '%s'}
  c:
    type: sh
    needs: b
    script: '%s'
    compensate: {type: sh, script: 'echo "undo-c" >> "$LOG"'}
  x: {type: sh, script: 'true'}
`, log, bUndo, cScript)
}

const undoB = `echo "undo-b $HYPHAE_RESULT_ID" >> "$LOG"`

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func comp(t *testing.T, st *scheduler.Status, name string) *scheduler.CompState {
	t.Helper()
	c := job(t, st, name).Compensation
	if c == nil {
		t.Fatalf("job %s shows no compensation; flow compensation %q", name, st.Compensation)
	}
	return c
}

// A failed flow undoes its finished jobs, the later one first, each with
// its own result; the failed job and jobs without a compensation are not
// undone.
func TestCompensationUndoesFinishedJobsInReverseOrder(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "log")
	fl := e.run(t, s, sagaFlow(log, "exit 3", undoB))
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	if st.Compensation != scheduler.Compensated {
		t.Fatalf("compensation %q (%s), want compensated", st.Compensation, st.CompensationError)
	}
	if got := readLog(t, log); got != "undo-b B1\nundo-a A1\n" {
		t.Fatalf("compensations ran as %q, want b's then a's, each with its job's result", got)
	}
	for _, n := range []string{"a", "b"} {
		if c := comp(t, st, n); c.State != model.NodeCompleted || c.Status != model.JobFinished {
			t.Fatalf("job %s: compensation %+v, want completed", n, c)
		}
	}
	if txt := render(st); !strings.Contains(txt, "compensation: compensated\n  a  completed  job:") {
		t.Fatalf("flow status does not show the compensation:\n%s", txt)
	}
	if job(t, st, "c").Compensation != nil || e.w.count("c.compensate") != 0 {
		t.Fatal("the failed job c was compensated")
	}
	if !strings.HasPrefix(st.Error, `job "c" failed`) {
		t.Fatalf("flow error %q, want the job that failed", st.Error)
	}
}

// A flow that finishes runs no compensation.
func TestCompensationNotRunWhenFlowFinishes(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "log")
	st := e.wait(t, s, e.run(t, s, sagaFlow(log, "true", undoB)).ID)
	wantFlow(t, st, model.FlowFinished)
	if st.Compensation != "" || readLog(t, log) != "" {
		t.Fatalf("compensation %q, log %q: want none", st.Compensation, readLog(t, log))
	}
}

// A compensation that fails after its retries leaves the flow
// compensation_failed, naming the job; the compensations waiting for it
// do not run.
func TestCompensationFailedNamesTheJob(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "log")
	st := e.wait(t, s, e.run(t, s, sagaFlow(log, "exit 3", `echo try >> "$LOG"; exit 4`)).ID)
	wantFlow(t, st, model.FlowError)
	if st.Compensation != scheduler.CompensationFailed || !strings.HasPrefix(st.CompensationError, `compensation of job "b" failed: `) {
		t.Fatalf("compensation %q (%q), want compensation_failed naming job b", st.Compensation, st.CompensationError)
	}
	if got := readLog(t, log); got != "try\ntry\n" {
		t.Fatalf("log %q: want b's compensation tried twice (retries: 1) and a's never", got)
	}
	if c := comp(t, st, "b"); c.State != model.NodeFailed {
		t.Fatalf("b's compensation %+v, want failed", c)
	}
	if c := comp(t, st, "a"); c.State != model.NodeCancelled {
		t.Fatalf("a's compensation %+v, want cancelled", c)
	}
}

// Cancelling a flow undoes what finished.
func TestCancelCompensates(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "log")
	fl := e.run(t, s, sagaFlow(log, "sleep 60", undoB))
	eventually(t, "c running", func() bool {
		st, err := s.Status(e.ctx, ctxID, fl.ID)
		return err == nil && job(t, st, "c").State == model.NodeRunning
	})
	if err := s.Cancel(e.ctx, ctxID, fl.ID); err != nil {
		t.Fatal(err)
	}
	st := e.wait(t, s, fl.ID)
	if st.Error != "cancelled" || st.Compensation != scheduler.Compensated {
		t.Fatalf("error %q compensation %q, want cancelled and compensated", st.Error, st.Compensation)
	}
	if got := readLog(t, log); got != "undo-b B1\nundo-a A1\n" {
		t.Fatalf("log %q", got)
	}
}

// A scheduler that stops mid-compensation leaves it in Redis; the next one
// goes on from there and runs each compensation once.
func TestCompensationResumesAfterRestart(t *testing.T) {
	e := newEnv(t, 2)
	s1 := e.sched(t, e.config())
	dir := t.TempDir()
	log, gate := filepath.Join(dir, "log"), filepath.Join(dir, "gate")
	slowUndo := fmt.Sprintf(`while [ ! -e %s ]; do sleep 0.05; done; %s`, gate, undoB)
	fl := e.run(t, s1, sagaFlow(log, "exit 3", slowUndo))
	eventually(t, "b's compensation running", func() bool {
		st, err := s1.Status(e.ctx, ctxID, fl.ID)
		return err == nil && st.Compensation == scheduler.Compensating &&
			job(t, st, "b").Compensation != nil && job(t, st, "b").Compensation.Status == model.JobStarted
	})
	if err := s1.Shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := e.sched(t, e.config())
	st := e.wait(t, s2, fl.ID)
	if st.Compensation != scheduler.Compensated {
		t.Fatalf("compensation %q (%s), want compensated", st.Compensation, st.CompensationError)
	}
	if got := readLog(t, log); got != "undo-b B1\nundo-a A1\n" {
		t.Fatalf("log %q: want each compensation once, b's first", got)
	}
}

// Why a compensation failed is still said after a restart that came
// between its failure and the end of the others.
func TestCompensationFailureSurvivesRestart(t *testing.T) {
	e := newEnv(t, 2)
	s1 := e.sched(t, e.config())
	gate := filepath.Join(t.TempDir(), "gate")
	fl := e.run(t, s1, fmt.Sprintf(`
jobs:
  x: {type: sh, script: 'true', compensate: {type: sh, script: 'exit 4'}}
  y: {type: sh, script: 'true', compensate: {type: sh, script: 'while [ ! -e %s ]; do sleep 0.05; done'}}
  z: {type: sh, needs: [x, y], script: 'exit 3'}
`, gate))
	eventually(t, "x's compensation failed, y's running", func() bool {
		st, err := s1.Status(e.ctx, ctxID, fl.ID)
		if err != nil || st.Compensation != scheduler.Compensating {
			return false
		}
		x, y := job(t, st, "x").Compensation, job(t, st, "y").Compensation
		return x != nil && x.State == model.NodeFailed && y != nil && y.Status == model.JobStarted
	})
	if err := s1.Shutdown(e.ctx); err != nil {
		t.Fatal(err)
	}
	s2 := e.sched(t, e.config())
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st := e.wait(t, s2, fl.ID)
	want := `compensation of job "x" failed: script: exit status 4`
	if st.Compensation != scheduler.CompensationFailed || st.CompensationError != want {
		t.Fatalf("compensation %q (%q), want compensation_failed (%q)", st.Compensation, st.CompensationError, want)
	}
}
