package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Taking the admin role from a context's only admin is refused, saying
// why and what to do, and changes nothing; with a second admin it is let
// through.
func TestRevokeLastAdminRefused(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	var c wire.ContextView
	a.call(t, "context.create", map[string]any{"id": 3}, &c)
	if len(c.Admins) != 1 {
		t.Fatalf("new context's admins %v, want this agent's actor", c.Admins)
	}
	self := c.Admins[0]
	err := a.client.Call(context.Background(), "context.revoke", map[string]any{"id": 3, "actor": a.peerID(), "role": "admin"}, nil)
	e := rpcErr(t, err)
	want := "is the last admin of context 3: grant another admin first"
	if e.Code != api.CodeConflict || !strings.Contains(e.Message, want) {
		t.Fatalf("revoke of the last admin: %d %q, want conflict and %q", e.Code, e.Message, want)
	}
	a.call(t, "context.load", map[string]any{"id": 3}, &c)
	if len(c.Admins) != 1 || c.Admins[0] != self {
		t.Fatalf("refused revoke changed the admins to %v", c.Admins)
	}
	other := startAgent(t, agentOpts{})
	a.call(t, "context.grant", map[string]any{"id": 3, "actor": other.peerID(), "role": "admin"}, nil)
	a.call(t, "context.revoke", map[string]any{"id": 3, "actor": a.peerID(), "role": "admin"}, &c)
	if len(c.Admins) != 1 || c.Admins[0] == self {
		t.Fatalf("revoke with a second admin: admins %v", c.Admins)
	}
}
