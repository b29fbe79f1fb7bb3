package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// runCLI runs the CLI in process and returns its exit code, stdout and
// stderr, as a shell would see them.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWith(t.Context(), &globals{agent: agent.New(), stdout: &out, stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// The README promises exit 2 for bad usage: a missing required flag used
// to exit 1, an unknown subcommand printed its group's help and exited 0.
func TestBadUsageExitsTwo(t *testing.T) {
	dir := t.TempDir() // no agent runs there: usage is refused before asking one
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "grant", "1", "--role", "reader"}, `required flag(s) "actor" not set`},
		{[]string{"job", "status", "job:1:1"}, "no context: give --context N"},
		{[]string{"job", "frobnicate"}, `unknown command "frobnicate" for "hyphae job"`},
		{[]string{"flow", "stauts", "1"}, `did you mean start or status?`},
		{[]string{"nosuch"}, `unknown command "nosuch"`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "hyphae completion"`},
	} {
		code, out, stderr := runCLI(t, append(c.args, "--data-dir", dir)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("hyphae %s: exit %d, stderr %q; want %d and %q", strings.Join(c.args, " "), code, stderr, ExitUsage, c.want)
		}
		if strings.Contains(out, "Available Commands") {
			t.Errorf("hyphae %s printed help on stdout:\n%s", strings.Join(c.args, " "), out)
		}
	}
}

// A group with no subcommand still shows its help, and exits 0.
func TestBareGroupShowsHelp(t *testing.T) {
	code, out, _ := runCLI(t, "job", "--data-dir", t.TempDir())
	if code != ExitOK || !strings.Contains(out, "Available Commands") {
		t.Fatalf("hyphae job: exit %d, stdout %q", code, out)
	}
}

// hyphae --version prints what hyphae version does, exit 0.
func TestVersionFlagExitsZero(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	code2, out2, _ := runCLI(t, "version")
	if code != ExitOK || code2 != ExitOK || out != out2 || !strings.HasPrefix(out, "hyphae version ") {
		t.Fatalf("--version: exit %d %q; version: exit %d %q", code, out, code2, out2)
	}
}
