package scheduler_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A cancelled flow ends the jobs that were still waiting to start: their
// hashes say error, with why, instead of waiting_for_prerequisites for
// ever; the job it stopped ends as a stopped job does.
func TestCancelEndsWaitingJobs(t *testing.T) {
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
	after := job(t, st, "after")
	if after.Status != model.JobError || !strings.Contains(after.Error, "cancelled") {
		t.Fatalf("waiting job after cancel: status %q error %q, want error saying cancelled", after.Status, after.Error)
	}
}
