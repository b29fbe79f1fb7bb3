package need

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

const childEnv = "HYPHAE_NEED_TEST_CHILD"

// TestChildNeedsAMissingTool is the test run by the cases below in a child
// process; on its own it does nothing.
func TestChildNeedsAMissingTool(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("runs only as the child of TestMissingToolFails")
	}
	Tool(t, "hyphae-no-such-tool", "hyphae-pkg")
	t.Log("REACHED")
}

func runChild(t *testing.T, env ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestChildNeedsAMissingTool$", "-test.v")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", OptOut + "="}, env...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A missing part fails the test, naming what to install: a run that
// tested nothing is not green.
func TestMissingToolFails(t *testing.T) {
	out, err := runChild(t)
	if err == nil || !strings.Contains(out, "--- FAIL") {
		t.Fatalf("the child passed without its tool:\n%s", out)
	}
	for _, want := range []string{"hyphae-no-such-tool not installed", "apt-get install -y hyphae-pkg", OptOut} {
		if !strings.Contains(out, want) {
			t.Errorf("the failure does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "REACHED") {
		t.Errorf("the test went on past its missing tool:\n%s", out)
	}
}

// With the opt-out set the same test skips, saying why.
func TestMissingToolSkipsWithOptOut(t *testing.T) {
	out, err := runChild(t, OptOut+"=1")
	if err != nil || !strings.Contains(out, "--- SKIP") {
		t.Fatalf("the child did not skip with %s=1 (err %v):\n%s", OptOut, err, out)
	}
	if !strings.Contains(out, "hyphae-no-such-tool not installed") {
		t.Errorf("the skip does not say why:\n%s", out)
	}
}
