// Package need turns a test's missing part into a failure that names it.
//
// A suite that skips every test needing redis-server, root or Chromium
// prints "ok" on a machine that has none of them: a green that tested
// nothing. Tests ask for their parts here instead; a missing part fails
// the test with what to install. A developer who means to run only what
// the machine can sets HYPHAE_TEST_SKIP_MISSING=1, and those tests skip,
// saying why, as before.
package need

import (
	"os"
	"os/exec"
	"testing"
)

// OptOut is the environment variable that turns a missing part into a
// skip.
const OptOut = "HYPHAE_TEST_SKIP_MISSING"

// Missing ends the test for a part the machine lacks: a failure naming
// it, or a skip when OptOut is set.
func Missing(tb testing.TB, what string) {
	tb.Helper()
	if os.Getenv(OptOut) != "" {
		tb.Skip(what)
	}
	tb.Fatalf("missing: %s (scripts/test installs what the suite needs; %s=1 skips such tests)", what, OptOut)
}

// Tool returns the path of a command the test needs, or ends the test
// naming the Debian package that holds it.
func Tool(tb testing.TB, name, pkg string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(tb, name+" not installed (apt-get install -y "+pkg+")")
	}
	return p
}

// Root ends the test unless it runs as root; why says what root is for.
func Root(tb testing.TB, why string) {
	tb.Helper()
	if os.Geteuid() != 0 {
		Missing(tb, "needs root: "+why)
	}
}
