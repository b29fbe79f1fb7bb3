package e2e

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
)

// versionOf is the version `hyphae version` of binary b prints, checking
// that `--version` prints the same line.
func versionOf(t *testing.T, b string) (version, line string) {
	t.Helper()
	out, err := exec.Command(b, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", b, err)
	}
	flag, err := exec.Command(b, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", b, err)
	}
	if string(out) != string(flag) {
		t.Fatalf("%s: version printed %q, --version %q", b, out, flag)
	}
	f := strings.Fields(string(out))
	if len(f) < 3 || f[0] != "hyphae" || f[1] != "version" {
		t.Fatalf("%s version printed %q", b, out)
	}
	return f[2], string(out)
}

// One version string per binary: `hyphae version`, node.info (`hyphae
// info`) and presence (what `hyphae peers` of another agent shows, and the
// dashboard's peers page) say the same, both for a plain `go build` in the
// checkout (no ldflags; Go stamps a v0.0.0-… pseudo-version into it) and
// for a build with scripts/release's -ldflags.
func TestVersionOneString(t *testing.T) {
	t.Parallel()
	const relVersion, relCommit, relDate = "0.9.9-e2e", "abc123def456", "2026-11-20T00:00:00Z"
	repo := repoRoot(t)
	if err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Run(); err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	pkg := "github.com/hyphae-run/hyphae"
	dir := t.TempDir()
	plainBin, rel := filepath.Join(dir, "hyphae-plain"), filepath.Join(dir, "hyphae-release")
	for _, args := range [][]string{
		// -buildvcs=true as `go build` in a checkout does by default (GOFLAGS may say otherwise)
		{"-buildvcs=true", "-o", plainBin},
		{"-buildvcs=false", "-o", rel, "-ldflags", "-X " + pkg + "/node.Version=" + relVersion +
			" -X " + pkg + "/cmd/hyphae/cli.commit=" + relCommit + " -X " + pkg + "/cmd/hyphae/cli.buildDate=" + relDate},
	} {
		build := gobuild.Command(repo, append(args, "./cmd/hyphae")...)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %v: %v\n%s", args, err, out)
		}
	}
	if out, err := exec.Command("go", "version", "-m", plainBin).Output(); err == nil {
		t.Logf("the plain build's module line: %s", regexp.MustCompile(`(?m)^\s+mod\s.*$`).Find(out))
	}

	plainV, _ := versionOf(t, plainBin)
	if regexp.MustCompile(`\d{14}-[0-9a-f]{12}`).MatchString(plainV) {
		t.Errorf("a plain build's hyphae version is the pseudo-version %q", plainV)
	}
	relV, relLine := versionOf(t, rel)
	if want := "version " + relVersion + " (commit " + relCommit + ", built " + relDate + ","; !strings.Contains(relLine, want) {
		t.Errorf("the release build's hyphae version printed %q, want %q", relLine, want)
	}

	plain := newBinAgent(t, "plain", plainBin)
	release := newBinAgent(t, "release", rel, "--bootstrap", plain.addr(t))
	for _, a := range []struct {
		agent *binAgent
		want  string
	}{{plain, plainV}, {release, relV}} {
		var info struct {
			Version string `json:"version"`
		}
		decode(t, a.agent.hy(t, "info", "--json"), &info)
		if info.Version != a.want {
			t.Errorf("%s build: hyphae version says %q, node.info %q", a.agent.name, a.want, info.Version)
		}
	}
	eventually(t, 30*time.Second, "each agent to see the other up with the version its binary prints", func() bool {
		return plain.peerVersion(t, release.peer) == relV && release.peerVersion(t, plain.peer) == plainV
	})
}
