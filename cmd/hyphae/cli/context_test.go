package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// `context create --id 0` used to create the lowest free context and print
// "created context 3": id 0 is DB 0, the agent's own, so it is refused as
// bad usage before the agent is asked (none runs on this data dir).
func TestContextCreateRefusesIDZero(t *testing.T) {
	var out, errb bytes.Buffer
	g := &globals{agent: agent.New(), stdout: &out, stderr: &errb}
	root := newRoot(g)
	root.SetArgs([]string{"context", "create", "--id", "0", "--data-dir", t.TempDir()})
	root.SetOut(&out)
	root.SetErr(&errb)
	err := root.ExecuteContext(t.Context())
	ee, ok := err.(*exitError)
	if !ok || ee.code != ExitUsage || !strings.Contains(err.Error(), "no context 0") {
		t.Fatalf("context create --id 0 = %v, want exit %d saying there is no context 0", err, ExitUsage)
	}
	if strings.Contains(out.String(), "created") {
		t.Fatalf("printed %q", out.String())
	}
}
