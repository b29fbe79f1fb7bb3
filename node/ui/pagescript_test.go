package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// runPageScript runs script (fakeDOM and what follows it) under Node.js
// on the embedded dom.js and views.js, with stdin as its input, and
// answers what it printed.
func runPageScript(t *testing.T, script, stdin string) []byte {
	t.Helper()
	bin := need.Tool(t, "node", "nodejs") // the dashboard's script tests run in Node.js
	dir := t.TempDir()
	var args []string
	for _, name := range []string{"dom.js", "views.js"} {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	p := filepath.Join(dir, "page.js")
	if err := os.WriteFile(p, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{p}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	return out
}
