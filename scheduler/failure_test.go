package scheduler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

func TestFailureCancelsDependents(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
jobs:
  a:     {type: sh, script: 'echo "x=1" >> "$HYPHAE_RESULT"'}
  bad:   {type: sh, needs: a, script: 'echo "partial=yes" >> "$HYPHAE_RESULT"; exit 3'}
  next:  {type: sh, needs: bad, script: 'true'}
  last:  {type: sh, needs: [next, a], script: 'true'}
  other: {type: sh, needs: a, script: 'sleep 0.2; echo "done=1" >> "$HYPHAE_RESULT"'}
`)
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	if !strings.HasPrefix(st.Error, `job "bad" failed: `) {
		t.Fatalf("flow error %q, want it to name job bad", st.Error)
	}
	wantStates(t, st, map[string]model.NodeState{"a": model.NodeCompleted, "bad": model.NodeFailed,
		"next": model.NodeCancelled, "last": model.NodeCancelled, "other": model.NodeCompleted})
	if e.w.count("next") != 0 || e.w.count("last") != 0 {
		t.Fatal("a cancelled job ran")
	}
	if st.Result["other.done"] != "1" || st.Result["bad.partial"] != "yes" {
		t.Fatalf("result %v: want other.done (on_failure wait lets it finish) and bad.partial", st.Result)
	}
}

func TestContinueOnError(t *testing.T) {
	e := newEnv(t, 1)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
jobs:
  soft: {type: sh, continue_on_error: true, script: 'echo "tried=1" >> "$HYPHAE_RESULT"; exit 1'}
  next: {type: sh, needs: soft, script: 'echo "saw=$HYPHAE_IN_SOFT_TRIED" >> "$HYPHAE_RESULT"'}
`)
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowFinished)
	wantStates(t, st, map[string]model.NodeState{"soft": model.NodeFailed, "next": model.NodeCompleted})
	if st.Result["next.saw"] != "1" {
		t.Fatalf("next saw %q, want 1", st.Result["next.saw"])
	}
	if !strings.Contains(render(st), "(continue_on_error)") {
		t.Fatalf("render does not mark the tolerated failure:\n%s", render(st))
	}
}

func TestFlowTimeout(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	start := time.Now()
	fl := e.run(t, s, `
timeout: 1s
jobs:
  quick: {type: sh, script: 'true'}
  slow:  {type: sh, needs: quick, script: 'sleep 60'}
  after: {type: sh, needs: slow, script: 'true'}
`)
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	if st.Error != "timeout after 1s" {
		t.Fatalf("flow error %q, want \"timeout after 1s\"", st.Error)
	}
	wantStates(t, st, map[string]model.NodeState{"quick": model.NodeCompleted,
		"slow": model.NodeCancelled, "after": model.NodeCancelled})
	eventually(t, "the slow job to be killed", func() bool {
		j, err := e.st.Jobs.LoadJobKey(e.ctx, ctxID, job(t, st, "slow").Key)
		return err == nil && j.Status == model.JobError
	})
	if time.Since(start) > 30*time.Second {
		t.Fatal("the stopped job was not killed")
	}
}

func TestCancel(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
jobs:
  long:  {type: sh, script: 'sleep 60'}
  after: {type: sh, needs: long, script: 'true'}
`)
	eventually(t, "long to start", func() bool {
		st, err := s.Status(e.ctx, ctxID, fl.ID)
		return err == nil && job(t, st, "long").State == model.NodeRunning
	})
	if err := s.Cancel(e.ctx, ctxID, fl.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	if st.Error != "cancelled" {
		t.Fatalf("flow error %q, want cancelled", st.Error)
	}
	wantStates(t, st, map[string]model.NodeState{"long": model.NodeCancelled, "after": model.NodeCancelled})
	eventually(t, "long to be killed", func() bool { return e.w.count("long") == 1 })
	if err := s.Cancel(e.ctx, ctxID, fl.ID); err == nil {
		t.Fatal("cancelling an ended flow: want an error")
	}
}

func TestOnFailureStop(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	fl := e.run(t, s, `
on_failure: stop
jobs:
  long: {type: sh, script: 'sleep 60'}
  bad:  {type: sh, script: 'sleep 0.3; exit 1'}
  more: {type: sh, needs: long, script: 'true'}
`)
	st := e.wait(t, s, fl.ID)
	wantFlow(t, st, model.FlowError)
	wantStates(t, st, map[string]model.NodeState{"bad": model.NodeFailed,
		"long": model.NodeCancelled, "more": model.NodeCancelled})
	eventually(t, "long to be stopped", func() bool { return e.w.count("long") == 1 })
}

func TestCancelCreatedFlow(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	fl := e.create(t, s, "jobs:\n  a: {type: sh, script: 'true'}\n")
	if err := s.Cancel(e.ctx, ctxID, fl.ID); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	st, err := s.Status(e.ctx, ctxID, fl.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantFlow(t, st, model.FlowError)
	if err := s.StartFlow(e.ctx, ctxID, fl.ID); err == nil {
		t.Fatal("starting a cancelled flow: want an error")
	}
}
