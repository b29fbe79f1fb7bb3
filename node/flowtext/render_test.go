package flowtext_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/flowtext"
)

func TestRender(t *testing.T) {
	js := func(name string, st model.NodeState, depth int, dur int64, needs ...string) wire.FlowJobState {
		return wire.FlowJobState{Name: name, State: st, Type: "sh", Runner: "self", Attempt: 1,
			Depth: depth, Duration: dur, Needs: needs}
	}
	st := &wire.FlowState{ID: 7, Name: "build", ContextID: 1, Status: model.FlowStarted,
		Jobs: []wire.FlowJobState{
			js("fetch", model.NodeCompleted, 0, 1),
			js("lint", model.NodeFailed, 1, 0, "fetch"),
			js("compile", model.NodeRunning, 1, 3, "fetch"),
			js("test", model.NodeCompleted, 1, 2, "fetch"),
			js("package", model.NodePending, 2, 0, "compile", "test"),
			js("docs", model.NodeCancelled, 0, 0),
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
	if got := flowtext.Render(st); got != want {
		t.Fatalf("Render:\n%s\nwant:\n%s", got, want)
	}
	st.Status, st.Error, st.Result = model.FlowError, "cancelled", map[string]string{"fetch.n": "1", "test.out": "a\nb"}
	got := flowtext.Render(st)
	if !strings.Contains(got, "error: cancelled\nresult:\n  fetch.n = 1\n  test.out = a …\n") {
		t.Fatalf("Render of an ended flow:\n%s", got)
	}
}

func addProgress(p *wire.FlowProgress, s model.NodeState) {
	p.Total++
	switch s {
	case model.NodeCompleted:
		p.Completed++
	case model.NodeFailed:
		p.Failed++
	case model.NodeCancelled:
		p.Cancelled++
	case model.NodeRunning:
		p.Running++
	case model.NodePending:
		p.Pending++
	}
	p.Done = p.Completed + p.Failed + p.Cancelled
}
