package e2e

import (
	_ "embed"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// installScript is run as root in a private mount namespace whose /etc,
// /usr/local and /var/lib are overlays: the install happens for real
// (useradd, chown, init as the hyphae user, the agent started as it), and
// the machine sees none of it afterwards.
//
//go:embed testdata/install_ns.sh
var installScript string

// TestInstallScript follows docs/install.md: scripts/install.sh as root on a
// machine without a hyphae user, twice (the second run is an upgrade), then
// the agent run as hyphae on its state dir, then the unit's first start
// (ExecStartPre) on an empty state dir as systemd would run it.
func TestInstallScript(t *testing.T) {
	t.Parallel()
	need.Root(t, "it creates a system user (in a private mount namespace)")
	pkg := map[string]string{"unshare": "util-linux", "useradd": "passwd", "groupadd": "passwd", "runuser": "util-linux", "mount": "mount"}
	for _, tool := range []string{"unshare", "useradd", "groupadd", "runuser", "mount"} {
		need.Tool(t, tool, pkg[tool])
	}
	repo := repoRoot(t)
	work := t.TempDir()
	script := filepath.Join(work, "install_ns.sh")
	if err := os.WriteFile(script, []byte(installScript), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "bash", script, work, repo, bin)
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "SKIP: ") {
		t.Skip(strings.TrimSpace(string(out[strings.Index(string(out), "SKIP: ")+6:])))
	}
	if err != nil {
		t.Fatalf("install in a namespace: %v\n%s", err, out)
	}
	got := keyValues(string(out))
	t.Logf("%s", out)
	if got["agent_info"] == "ok" {
		info, err := os.ReadFile(filepath.Join(work, "info.out"))
		if err != nil {
			t.Fatal(err)
		}
		testnet.GuardInfo(t, "the installed agent", info)
	}

	peers := regexp.MustCompile(`(?m)^install: peer ID (12D3KooW\w+)$`).FindAllStringSubmatch(string(out), -1)
	if len(peers) != 2 || peers[0][1] != peers[1][1] {
		t.Fatalf("install.sh should print the same peer ID on both runs, printed %v", peers)
	}
	if got["id_as_hyphae"] != peers[0][1] {
		t.Errorf("hyphae id as user hyphae says %q, install.sh printed %q", got["id_as_hyphae"], peers[0][1])
	}
	for key, want := range map[string]string{
		"stat_state":     "hyphae hyphae 750",
		"stat_key":       "hyphae hyphae 600",
		"stat_config":    "hyphae hyphae 600",
		"stat_bin":       "root root 755",
		"stat_unit":      "root root 644",
		"user_shell":     "/usr/sbin/nologin",
		"agent_user":     "hyphae",
		"agent_info":     "ok",
		"prestart_key":   "hyphae hyphae 600",
		"prestart_again": "ok",
		"unit_user":      "hyphae",
		"unit_state_dir": "hyphae",
	} {
		if got[key] != want {
			t.Errorf("%s = %q, want %q", key, got[key], want)
		}
	}
	if v, ok := got["verify"]; ok && v != "0" {
		t.Errorf("systemd-analyze verify on the installed unit exited %s (output above)", v)
	}
}

// TestInstallScriptDestdir stages the files under DESTDIR without root
// work: what a package build does.
func TestInstallScriptDestdir(t *testing.T) {
	t.Parallel()
	dest := t.TempDir()
	cmd := exec.Command("sh", filepath.Join(repoRoot(t), "scripts", "install.sh"), "--binary", bin)
	cmd.Env = append(os.Environ(), "DESTDIR="+dest, "PREFIX=/opt/hyphae")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh with DESTDIR: %v\n%s", err, out)
	}
	unit, err := os.ReadFile(filepath.Join(dest, "etc/systemd/system/hyphae.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "ExecStart=/opt/hyphae/bin/hyphae run") || strings.Contains(string(unit), "/usr/local/bin") {
		t.Errorf("the staged unit should run /opt/hyphae/bin/hyphae:\n%s", unit)
	}
	if fi, err := os.Stat(filepath.Join(dest, "opt/hyphae/bin/hyphae")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("staged binary: %v %v", fi, err)
	}
}

// TestPlainBuildVersion: `go build` in a checkout, no ldflags, and
// `hyphae version` names the commit the tree is at.
func TestPlainBuildVersion(t *testing.T) {
	t.Parallel()
	repo := repoRoot(t)
	head, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	exe := filepath.Join(t.TempDir(), "hyphae")
	build := gobuild.Command(repo, "-buildvcs=true", "-o", exe, "./cmd/hyphae")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	out, err := exec.Command(exe, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "commit " + strings.TrimSpace(string(head))
	if !strings.Contains(string(out), want) || strings.Contains(string(out), "built unknown") {
		t.Fatalf("hyphae version printed %q, want %q and the commit's date", out, want)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// keyValues collects the script's "key=value" lines.
func keyValues(out string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && regexp.MustCompile(`^[a-z_]+$`).MatchString(k) {
			kv[k] = v
		}
	}
	return kv
}
