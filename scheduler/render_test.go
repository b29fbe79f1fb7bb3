package scheduler_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/scheduler"
)

func TestRender(t *testing.T) {
	js := func(name string, st scheduler.NodeState, depth int, dur int64, needs ...string) scheduler.JobState {
		return scheduler.JobState{Name: name, State: st, Type: "sh", Runner: "self", Attempt: 1,
			Depth: depth, Duration: dur, Needs: needs}
	}
	st := &scheduler.Status{ID: 7, Name: "build", ContextID: 1, Status: model.FlowStarted,
		Jobs: []scheduler.JobState{
			js("fetch", scheduler.StateCompleted, 0, 1),
			js("lint", scheduler.StateFailed, 1, 0, "fetch"),
			js("compile", scheduler.StateRunning, 1, 3, "fetch"),
			js("test", scheduler.StateCompleted, 1, 2, "fetch"),
			js("package", scheduler.StatePending, 2, 0, "compile", "test"),
			js("docs", scheduler.StateCancelled, 0, 0),
		}}
	st.Jobs[1].ContinueOnError = true
	st.Jobs[1].Error = "script: exit status 1"
	st.Jobs[4].Attempt, st.Jobs[4].Runner = 0, ""
	st.Jobs[5].Attempt = 0
	for _, j := range st.Jobs {
		addProgress(&st.Progress, j.State)
	}
	want := `flow 7 build (context 1): started — 4/6 done (1 failed, 1 cancelled), 1 running, 1 waiting
✓ fetch          completed   sh  self  1s
├─ ✗ lint        failed      sh  self  0s  (continue_on_error)  — script: exit status 1
├─ ● compile     running     sh  self  3s
│  └─ ○ package  pending     sh  needs: compile, test
└─ ✓ test        completed   sh  self  2s
⊘ docs           cancelled   sh  self
`
	if got := scheduler.Render(st); got != want {
		t.Fatalf("Render:\n%s\nwant:\n%s", got, want)
	}
	st.Status, st.Error, st.Result = model.FlowError, "cancelled", map[string]string{"fetch.n": "1", "test.out": "a\nb"}
	got := scheduler.Render(st)
	if !strings.Contains(got, "error: cancelled\nresult:\n  fetch.n = 1\n  test.out = a …\n") {
		t.Fatalf("Render of an ended flow:\n%s", got)
	}
}

func addProgress(p *scheduler.Progress, s scheduler.NodeState) {
	p.Total++
	switch s {
	case scheduler.StateCompleted:
		p.Completed++
	case scheduler.StateFailed:
		p.Failed++
	case scheduler.StateCancelled:
		p.Cancelled++
	case scheduler.StateRunning:
		p.Running++
	case scheduler.StatePending:
		p.Pending++
	}
	p.Done = p.Completed + p.Failed + p.Cancelled
}

func TestStatusAndList(t *testing.T) {
	e := newEnv(t, 2)
	s := e.sched(t, e.config())
	fl := e.run(t, s, "name: tiny\njobs:\n  a: {type: sh, script: 'true'}\n  b: {type: sh, needs: a, script: 'true'}\n  c: {type: sh, needs: a, script: 'true'}\n  d: {type: sh, needs: [b, c], script: 'true'}\n")
	st := e.wait(t, s, fl.ID)
	order := []string{}
	for _, j := range st.Jobs {
		order = append(order, j.Name)
	}
	if strings.Join(order, ",") != "a,b,c,d" {
		t.Fatalf("topological order %v", order)
	}
	out := scheduler.Render(st)
	for _, want := range []string{"✓ a ", "├─ ✓ b ", "│  └─ ✓ d ", "needs: b, c", "└─ ✓ c ", "4/4 done"} {
		if !strings.Contains(out, want) {
			t.Fatalf("render lacks %q:\n%s", want, out)
		}
	}
	e.create(t, s, "name: later\njobs:\n  x: {type: sh, script: 'true'}\n")
	list, err := s.List(e.ctx, ctxID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Name != "tiny" || list[0].Status != model.FlowFinished ||
		list[0].Progress.Completed != 4 || list[1].Status != model.FlowDispatched || list[1].Progress.Pending != 1 {
		t.Fatalf("List: %+v", list)
	}
}
