package scheduler_test

import (
	"path/filepath"
	"testing"
)

// flow list and flow status count the same jobs: a compensation is shown
// on its job, it is not one more job (7/7 in the list where the flow page
// said 6/6).
func TestListCountsTheJobsStatusCounts(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	log := filepath.Join(t.TempDir(), "log")
	fl := e.run(t, s, sagaFlow(log, "exit 3", undoB))
	st := e.wait(t, s, fl.ID)
	list, err := s.List(e.ctx, ctxID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sum := range list {
		if sum.ID != fl.ID {
			continue
		}
		if sum.Progress != st.Progress {
			t.Fatalf("flow list counts %+v, flow status %+v: want one count", sum.Progress, st.Progress)
		}
		if sum.Progress.Total != 4 {
			t.Fatalf("flow list counts %d jobs, want the file's 4", sum.Progress.Total)
		}
		return
	}
	t.Fatalf("flow %d not in the list", fl.ID)
}
