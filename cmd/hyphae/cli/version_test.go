package cli

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"
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
// come from the VCS stamp, and a modified tree says so.
func TestVersionFromBuildInfo(t *testing.T) {
	got := resolveVersion(versionInfo{Version: develVersion},
		vcsBuild("(devel)", "994c1f9de1eb0b7df2ab6e529585491a95b93943", "true", "2026-11-25T10:00:00Z"))
	want := versionInfo{Version: develVersion, Commit: "994c1f9de1eb0b7df2ab6e529585491a95b93943-dirty", Date: "2026-11-25T10:00:00Z"}
	if got != want {
		t.Fatalf("resolveVersion = %+v, want %+v", got, want)
	}
}

// `go install github.com/hyphae-run/hyphae/cmd/hyphae@v0.3.0`: the module
// version is the version.
func TestVersionFromModule(t *testing.T) {
	got := resolveVersion(versionInfo{Version: develVersion}, &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}})
	if got.Version != "v0.3.0" || got.Commit != "" {
		t.Fatalf("resolveVersion = %+v, want version v0.3.0 and no commit", got)
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
		g := &globals{stdout: &out, stderr: &errOut}
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
