package cli

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
	"github.com/hyphae-run/hyphae/node"
)

func vcsBuild(mainVersion, rev, modified, when string) *debug.BuildInfo {
	return &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/hyphae-run/hyphae", Version: mainVersion},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: when},
			{Key: "vcs.modified", Value: modified},
		},
	}
}

// A plain `go build` in a checkout: no ldflags, the commit and its time
// come from the VCS stamp, and a modified tree says so. The pseudo-version
// Go stamps does not replace the version: node.Version is the one string.
func TestVersionFromBuildInfo(t *testing.T) {
	bi := vcsBuild("v0.0.0-20261125100000-994c1f9de1eb+dirty", "994c1f9de1eb0b7df2ab6e529585491a95b93943", "true", "2026-11-25T10:00:00Z")
	got := resolveVersion(versionInfo{Version: node.DevelVersion}, bi)
	want := versionInfo{Version: node.DevelVersion, Commit: "994c1f9de1eb0b7df2ab6e529585491a95b93943-dirty", Date: "2026-11-25T10:00:00Z"}
	if got != want {
		t.Fatalf("resolveVersion = %+v, want %+v", got, want)
	}
}

// `hyphae version` prints node.Version, what node.info, /info, presence
// and the dashboard show; nothing in the CLI picks another.
func TestVersionIsNodeVersion(t *testing.T) {
	for _, mv := range []string{"(devel)", "v0.0.0-20261125100000-994c1f9de1eb", "v0.3.0"} {
		got := resolveVersion(versionInfo{Version: node.Version}, vcsBuild(mv, "abc", "false", "2026-11-25T10:00:00Z"))
		if got.Version != node.Version {
			t.Errorf("module version %s: resolveVersion says %q, node.Version is %q", mv, got.Version, node.Version)
		}
	}
	if v := currentVersion(agent.New().Version()).Version; v != node.Version {
		t.Errorf("hyphae version says %q, node.Version is %q", v, node.Version)
	}
}

// scripts/release sets all three with -ldflags; they win over the stamp.
func TestVersionFromLdflags(t *testing.T) {
	ld := versionInfo{Version: "0.2.0", Commit: "abc123", Date: "2026-11-20T00:00:00Z"}
	got := resolveVersion(ld, vcsBuild("(devel)", "def456", "false", "2026-11-25T10:00:00Z"))
	if got != ld {
		t.Fatalf("resolveVersion = %+v, want the ldflags %+v", got, ld)
	}
}

// `hyphae version` and `hyphae --version` print the same line, with the
// version, the commit and the build date (unknown in a test binary, which
// carries no VCS stamp).
func TestVersionCommandAndFlag(t *testing.T) {
	old := commit
	oldDate := buildDate
	commit, buildDate = "abc123", "2026-11-20T00:00:00Z"
	t.Cleanup(func() { commit, buildDate = old, oldDate })

	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		g := &globals{agent: agent.New(), stdout: &out, stderr: &errOut}
		root := newRoot(g)
		root.SetArgs(args)
		root.SetOut(&out)
		root.SetErr(&errOut)
		if err := root.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("hyphae %v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	cmd, flag := run("version"), run("--version")
	if cmd != flag {
		t.Fatalf("`hyphae version` printed %q, `hyphae --version` %q", cmd, flag)
	}
	for _, want := range []string{"hyphae version ", "commit abc123", "built 2026-11-20T00:00:00Z"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("hyphae version: %q lacks %q", cmd, want)
		}
	}
}
