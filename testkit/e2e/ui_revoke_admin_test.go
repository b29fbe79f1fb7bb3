package e2e

import (
	"strings"
	"testing"
)

// Revoking the last admin of a context from the dashboard is refused with
// the agent's reason, and the admin stays (issue 41).
func TestUIBrowserRevokeLastAdminRefused(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	a := startUIAgent(t)
	login(t, a, b)
	b.visit("#/contexts", `!!document.querySelector('form[data-grant="1"]')`)
	b.confirm("revoke the admin", `li[data-role="admin"] button`)
	msg := b.until("the refusal", `(t => !t.hidden && t.textContent)(document.getElementById('toast'))`)
	if !strings.Contains(msg, "is the last admin of context 1: grant another admin first") {
		t.Fatalf("revoking the last admin reads %q; want the refusal", msg)
	}
	var c struct {
		Admins []uint64 `json:"admins"`
	}
	a.call(t, "context.load", map[string]any{"id": 1}, &c)
	if len(c.Admins) != 1 {
		t.Fatalf("context 1's admins after the refused revoke: %v", c.Admins)
	}
}
