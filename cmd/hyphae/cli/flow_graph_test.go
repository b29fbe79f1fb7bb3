package cli

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func diamond() *wire.FlowState {
	return &wire.FlowState{ID: 3, Name: "diamond", Jobs: []wire.FlowJobState{
		{Name: "fetch", Key: "job:1:1", State: model.NodeCompleted},
		{Name: "count-words", Key: "job:1:2", State: model.NodeRunning, Needs: []string{"fetch"}},
		{Name: "count-lines", Key: "job:1:3", State: model.NodeFailed, Needs: []string{"fetch"}},
		{Name: "report", Key: "job:1:4", State: model.NodePending, Needs: []string{"count-words", "count-lines"}},
	}}
}

// flow status --dot draws each job once, with its state and key, and an
// edge per need.
func TestFlowStatusDot(t *testing.T) {
	got := dotGraph(diamond())
	for _, want := range []string{`digraph "flow 3 diamond" {`, `"fetch" [label="fetch\ncompleted\njob:1:1"`,
		`"fetch" -> "count-words";`, `"fetch" -> "count-lines";`, `"count-words" -> "report";`, `"count-lines" -> "report";`} {
		if !strings.Contains(got, want) {
			t.Errorf("--dot lacks %s:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "->"); n != 4 {
		t.Errorf("--dot has %d edges, want 4:\n%s", n, got)
	}
}

// flow status --mermaid draws the same graph as a Mermaid flowchart, ids
// that Mermaid accepts (a job name may hold a dash) and a class per state.
func TestFlowStatusMermaid(t *testing.T) {
	got := mermaidGraph(diamond())
	for _, want := range []string{"flowchart LR\n", `n1["count-words<br/>running<br/>job:1:2"]:::running`,
		"n0 --> n1", "n0 --> n2", "n1 --> n3", "n2 --> n3", "classDef failed fill:"} {
		if !strings.Contains(got, want) {
			t.Errorf("--mermaid lacks %q:\n%s", want, got)
		}
	}
}
