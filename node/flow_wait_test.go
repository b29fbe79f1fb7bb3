package node_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A flow.wait that times out while nothing changes answers with the flow as
// it is (so `flow run --wait` and `flow watch` keep waiting as long as the
// flow lasts), however many times it times out in a row.
func TestFlowWaitOutlastsItsTimeout(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	v := runFlow(t, a, "name: slow\ncontext: 1\njobs:\n  nap: {type: sh, script: 'sleep 4'}\n")
	waits := 0
	for !v.Terminal() {
		var next wire.FlowView
		a.call(t, "flow.wait", wire.FlowWaitParams{FlowRef: wire.FlowRef{Context: v.ContextID, ID: v.ID},
			Timeout: 1, After: v.Version}, &next)
		v = &next
		waits++
	}
	if v.Status != "finished" {
		t.Fatalf("flow ended %s: %s", v.Status, v.Error)
	}
	if waits < 2 {
		t.Fatalf("flow ended after %d waits: no wait timed out, the test proves nothing", waits)
	}
}
