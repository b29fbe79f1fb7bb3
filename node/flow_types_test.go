package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A flow whose job names a script type that is not built in and that no
// agent this one knows serves is refused before anything is stored, with
// the line, the job, the known types and a suggestion; once a peer that
// serves the type has been seen, the same flow is accepted.
func TestFlowWithUnknownScriptTypeIsRefused(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	text := "name: t\ncontext: 1\njobs:\n  ok: {type: sh, script: 'true'}\n  build: {type: specal, script: 'true'}\n"
	err := a.client.Call(context.Background(), "flow.create", wire.FlowCreateParams{FileContent: text, FileName: "t.yaml"}, nil)
	e := rpcErr(t, err)
	for _, want := range []string{`t.yaml:5: job "build": unknown script type "specal"`, "known: bash, noop, python, sh"} {
		if e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, want) {
			t.Fatalf("error %d %q, want invalid params containing %q", e.Code, e.Message, want)
		}
	}
	var flows []map[string]any
	a.call(t, "flow.list", map[string]any{"context": 1}, &flows)
	if len(flows) != 0 {
		t.Fatalf("a refused flow was stored: %v", flows)
	}

	b := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)},
		executors: map[string][]string{"specal": {"sh", "{file}"}}})
	waitPeerUp(t, a, b.peerID())
	var v wire.FlowView
	a.call(t, "flow.create", wire.FlowCreateParams{FileContent: text, FileName: "t.yaml"}, &v)
	if v.ID == 0 {
		t.Fatalf("flow not created once a peer serves the type: %+v", v)
	}
}
