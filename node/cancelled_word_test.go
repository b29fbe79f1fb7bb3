package node_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A job its flow cancelled reads cancelled in the job views as in the
// flow; its status stays error, the seed contract (docs/design.md).
func TestCancelledFlowJobSaysCancelled(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	file := "jobs:\n  a: {type: sh, script: 'exit 1'}\n  b: {type: sh, needs: a, script: 'true'}\n"
	var fv wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_content": file, "context": 1, "start": true}, &fv)
	a.call(t, "flow.wait", map[string]any{"context": 1, "id": fv.ID, "timeout": 60}, &fv)
	var key string
	for _, j := range fv.Jobs {
		if j.Name == "b" {
			key = j.Key
			if j.State != "cancelled" {
				t.Fatalf("b in the flow: %s, want cancelled", j.State)
			}
		}
	}
	var j wire.JobView
	a.call(t, "job.load", map[string]any{"context": 1, "key": key}, &j)
	if j.State != "cancelled" || j.Status != "error" {
		t.Fatalf("b as a job: state %q status %q; want state cancelled, status error", j.State, j.Status)
	}
	var list []*wire.JobView
	a.call(t, "job.list", map[string]any{"context": 1}, &list)
	for _, l := range list {
		if l.Key == key && l.State != "cancelled" {
			t.Fatalf("b in job.list: state %q, want cancelled", l.State)
		}
	}
}
