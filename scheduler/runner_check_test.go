package scheduler_test

import (
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// runnerWant is what the refusal of a runner value says a runner may be.
const runnerWant = `want self, a peer ID (12D3KooW…) or runner:<id> of a runner registered in the flow's context (hyphae runner list CONTEXT); leave runner out to let the agent pick a registered runner`

// A flow built in code with such a runner is refused by Create, and
// nothing of it is stored.
func TestCreateRefusesRunnersThatAreNoPeer(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	f := &flowfile.File{Source: "api", Context: ctxID, Jobs: []*flowfile.JobSpec{
		{Name: "a", Type: "sh", Script: "true", Runner: "not-a-peer"},
	}}
	_, err := s.Create(e.ctx, f, 1)
	if err == nil || !strings.Contains(err.Error(), `job "a": runner "not-a-peer": `+runnerWant) {
		t.Fatalf("Create: %v", err)
	}
	if keys := e.srv.Client(t, ctxID).Keys(e.ctx, "*").Val(); len(keys) != 0 {
		t.Fatalf("the refused flow left %v", keys)
	}
}
