package node_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// flow run (flow.create with start) on a file with on: warns that the
// trigger is not installed, naming the command that installs it, and
// runs the flow once; flow create alone warns too.
func TestFlowRunWarnsOfOn(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	hasOn := func(v wire.FlowView) bool {
		return slices.ContainsFunc(v.Warnings, func(w string) bool {
			return strings.Contains(w, "this flow has on:, install it with `hyphae event trigger add FILE`")
		})
	}
	var run wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_content": onOrderFlow, "file_name": "on.yaml", "start": true}, &run)
	if !hasOn(run) || !slices.ContainsFunc(run.Warnings, func(w string) bool { return strings.HasSuffix(w, "running it once now") }) {
		t.Fatalf("flow run warnings = %q; want the on: one, running it once", run.Warnings)
	}
	if v := waitFlow(t, a, &run); v.Status != "finished" {
		t.Fatalf("the run by hand ended %s (%s); want finished", v.Status, v.Error)
	}
	var created wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_content": onOrderFlow, "file_name": "on.yaml"}, &created)
	if !hasOn(created) {
		t.Fatalf("flow create warnings = %q; want the on: one", created.Warnings)
	}
	var plain wire.FlowView
	a.call(t, "flow.create", map[string]any{"file_content": "context: 1\njobs:\n  a: {type: sh, script: 'true'}\n"}, &plain)
	if hasOn(plain) {
		t.Fatalf("a flow without on: warned %q", plain.Warnings)
	}
}
