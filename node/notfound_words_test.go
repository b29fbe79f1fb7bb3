package node_test

import (
	"context"
	"strings"
	"testing"
)

// The API says a missing flow, job or context in the user's words, as the
// CLI does ("flow 999 not found in context 1"), not as the chain of calls
// that failed inside the agent (scheduler.Status: store.LoadFlowGraph: …).
func TestAPINotFoundSaysWhat(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	for _, c := range []struct {
		method string
		params map[string]any
		want   string
	}{
		{"flow.status", map[string]any{"context": 1, "id": 999}, "flow 999 not found in context 1"},
		{"flow.load", map[string]any{"context": 1, "id": 999}, "flow 999 not found in context 1"},
		{"flow.cancel", map[string]any{"context": 1, "id": 999}, "flow 999 not found in context 1"},
		{"flow.dag", map[string]any{"context_id": 1, "id": 999}, "flow 999 not found in context 1"},
		{"job.load", map[string]any{"context": 1, "key": "job:1:777"}, "job:1:777 not found in context 1"},
		{"job.status", map[string]any{"context": 1, "key": "job:1:777"}, "job:1:777 not found in context 1"},
		{"job.timeline", map[string]any{"context": 1, "key": "job:1:777"}, "job:1:777 not found in context 1"},
		{"job.logs", map[string]any{"context": 1, "key": "job:1:777"}, "job:1:777 not found in context 1"},
		{"context.load", map[string]any{"id": 42}, "context 42 not found"},
	} {
		err := a.client.Call(context.Background(), c.method, c.params, nil)
		e := rpcErr(t, err)
		if e.Message != c.want && !strings.HasPrefix(e.Message, c.want) || strings.Contains(e.Message, "store.") ||
			strings.Contains(e.Message, "scheduler.") {
			t.Errorf("%s %v: %q, want %q", c.method, c.params, e.Message, c.want)
		}
	}
}
