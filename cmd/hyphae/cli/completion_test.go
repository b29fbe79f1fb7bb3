package cli

import (
	"strings"
	"testing"
)

// complete runs cobra's hidden __complete command as a shell does and
// returns the values offered (descriptions cut off).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, stderr := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != ExitOK {
		t.Fatalf("__complete %v: exit %d: %s", args, code, stderr)
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && !strings.HasPrefix(l, ":") {
			v, _, _ := strings.Cut(l, "\t")
			vals = append(vals, v)
		}
	}
	return vals
}

// --role, --status and --type complete to their values, with no agent
// running (the agent's own types are added when one is).
func TestCompletionOfFlagValues(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "grant", "1", "--role", ""}, "admin executor reader"},
		{[]string{"job", "list", "--status", ""}, "dispatched waiting_for_prerequisites started error finished"},
		{[]string{"job", "run", "--type", ""}, "noop sh bash python"},
		{[]string{"runner", "create", "--type", "py"}, "noop sh bash python"},
	} {
		got := strings.Join(complete(t, append([]string{"--data-dir", dir}, c.args...)...), " ")
		if got != c.want {
			t.Errorf("complete %v = %q, want %q", c.args, got, c.want)
		}
	}
}
