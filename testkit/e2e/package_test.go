package e2e

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/gobuild"
	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// packageScript is run as root in a private mount namespace, chrooted in
// an overlay of / whose changes land in a tmpfs: dpkg, useradd and the
// agent work for real, and the machine sees none of it afterwards.
//
//go:embed testdata/package_ns.sh
var packageScript string

// TestPackage follows docs/install.md's "Debian/Ubuntu and RPM packages":
// on a clean root, dpkg -i a .deb of this tree, the files and the user it
// makes, the service started as systemd would (with the admin's change to
// the packaged config), a job run through the CLI; dpkg -i of a newer one
// (an upgrade): the new binary runs with the same peer ID, the changed
// config and the jobs kept; dpkg -r: the binary and the unit gone, the
// data dir and the key kept; dpkg --purge: the data gone.
func TestPackage(t *testing.T) {
	t.Parallel()
	need.Root(t, "dpkg -i and a system user (chrooted in an overlay of /, in a private mount namespace)")
	pkg := map[string]string{"dpkg": "dpkg", "unshare": "util-linux", "chroot": "coreutils", "runuser": "util-linux", "mount": "mount", "useradd": "passwd"}
	for _, tool := range []string{"dpkg", "unshare", "chroot", "runuser", "mount", "useradd"} {
		need.Tool(t, tool, pkg[tool])
	}
	repo := repoRoot(t)
	work := t.TempDir()
	tool := buildPackager(t, repo, work)
	debs := map[string]string{}
	for _, v := range []string{"0.1.0-test.1", "0.1.0-test.2"} {
		exe := filepath.Join(work, "hyphae-"+v)
		build := gobuild.Command(repo, "-ldflags", "-s -w -X github.com/hyphae-run/hyphae/node.Version="+v, "-o", exe, "./cmd/hyphae")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", v, err, out)
		}
		debs[v] = makePackage(t, tool, repo, exe, v, "deb", filepath.Join(work, v))
	}
	script := filepath.Join(work, "package_ns.sh")
	if err := os.WriteFile(script, []byte(packageScript), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "bash", script,
		filepath.Join(work, "ns"), debs["0.1.0-test.1"], debs["0.1.0-test.2"])
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "SKIP: ") {
		t.Skip(strings.TrimSpace(string(out[strings.Index(string(out), "SKIP: ")+6:])))
	}
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("dpkg in a chroot: %v", err)
	}
	got := keyValues(string(out))
	checkPackageRun(t, got)
	for _, p := range []string{"/usr/bin/hyphae", "/var/lib/hyphae", "/etc/hyphae"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists on the machine after the test: the chroot leaked", p)
		}
	}
}

// checkPackageRun checks what package_ns.sh printed.
func checkPackageRun(t *testing.T, got map[string]string) {
	t.Helper()
	peers := regexp.MustCompile(`^12D3KooW\w+$`)
	if !peers.MatchString(got["peer_installed"]) {
		t.Fatalf("no peer ID after dpkg -i: %q", got["peer_installed"])
	}
	for _, info := range []string{"info_a", "info_b"} {
		testnet.GuardInfo(t, "the packaged agent ("+info+")", []byte(got[info]))
	}
	want := map[string]string{
		"a_version": "0.1.0~test.1", "a_status": "ii",
		"conffiles":      "/etc/hyphae/hyphae.yaml",
		"stat_bin":       "root root 755",
		"stat_unit":      "root root 644",
		"stat_config":    "root hyphae 640",
		"stat_state":     "hyphae hyphae 750",
		"stat_key":       "hyphae hyphae 600",
		"config_link":    "/etc/hyphae/hyphae.yaml",
		"user_shell":     "/usr/sbin/nologin",
		"user_home":      "/var/lib/hyphae",
		"unit_user":      "hyphae",
		"unit_exec":      "/usr/bin/hyphae run --data-dir /var/lib/hyphae",
		"config_changes": "4",
		"agent_user":     "hyphae",
		"b_version":      "0.1.0~test.2", "b_status": "ii",
		"b_config_kept": "1", "b_key_kept": "yes",
		"r_status": "rc", "r_bin": "gone", "r_unit": "gone", "r_key_kept": "yes",
		"r_state": "hyphae hyphae 750", "r_config": "1", "r_user": "hyphae",
		"p_state": "gone", "p_config": "gone", "p_user": "hyphae",
	}
	for key, w := range want {
		if got[key] != w {
			t.Errorf("%s = %q, want %q", key, got[key], w)
		}
	}
	for info, version := range map[string]string{"info_a": "0.1.0-test.1", "info_b": "0.1.0-test.2"} {
		for _, s := range []string{`"peer_id": "` + got["peer_installed"] + `"`, `"version": "` + version + `"`} {
			if !strings.Contains(got[info], s) {
				t.Errorf("%s should say %s: %s", info, s, got[info])
			}
		}
	}
	if !strings.Contains(got["job_a"], "finished") || !strings.Contains(got["job_a"], "greeting = hello from the package") {
		t.Errorf("the job through the packaged agent: %q", got["job_a"])
	}
	if !strings.Contains(got["jobs_b"], "job:1:1") {
		t.Errorf("after the upgrade the job should still be listed: %q", got["jobs_b"])
	}
}

// TestPackageRPM reads an .rpm of this tree back with the packager's
// reader (no rpm tool needed; rpm -qpl too where it is installed): its
// version, arch, files with owners and modes, the config file marked
// noreplace and the maintainer scripts.
func TestPackageRPM(t *testing.T) {
	t.Parallel()
	repo := repoRoot(t)
	work := t.TempDir()
	tool := buildPackager(t, repo, work)
	// What the binary holds does not matter here; a small one packs fast.
	fake := filepath.Join(work, "hyphae")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rpm := makePackage(t, tool, repo, fake, "0.1.0-dev+abc123", "rpm", work)
	out, err := exec.Command(tool, "list", rpm).CombinedOutput()
	if err != nil {
		t.Fatalf("pkg list: %v\n%s", err, out)
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64", "arm": "armv7hl"}[runtime.GOARCH]
	for _, line := range []string{
		"name hyphae",
		"version 0.1.0~dev+abc123-1",
		"arch " + arch,
		"script post", "script preun", "script postun",
		"file 100755 root root /usr/bin/hyphae",
		"file 100644 root root /usr/lib/systemd/system/hyphae.service",
		"file 100640 root root /etc/hyphae/hyphae.yaml config noreplace",
	} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(line) + `$`).Match(out) {
			t.Errorf("pkg list %s has no line %q:\n%s", filepath.Base(rpm), line, out)
		}
	}
	if p, err := exec.LookPath("rpm"); err == nil {
		files, err := exec.Command(p, "-qpl", rpm).CombinedOutput()
		if err != nil || !strings.Contains(string(files), "/usr/bin/hyphae") {
			t.Errorf("rpm -qpl: %v\n%s", err, files)
		}
	}
}

// buildPackager builds scripts/pkg (a module of its own: nfpm) into dir.
func buildPackager(t *testing.T, repo, dir string) string {
	t.Helper()
	exe := filepath.Join(dir, "hyphae-pkg")
	cmd := gobuild.Command(filepath.Join(repo, "scripts", "pkg"), "-buildvcs=false", "-o", exe, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build scripts/pkg: %v\n%s", err, out)
	}
	return exe
}

// makePackage packages binary as version for this machine's arch and
// returns the package's path.
func makePackage(t *testing.T, tool, repo, binary, version, format, out string) string {
	t.Helper()
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64", "arm": "armv7"}[runtime.GOARCH]
	if arch == "" {
		t.Skipf("no package for %s", runtime.GOARCH)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "build", "--version", version, "--arch", arch, "--binary", binary,
		"--repo", repo, "--out", out, "--formats", format)
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH=1700000000")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pkg build %s %s: %v\n%s", version, format, err, b)
	}
	return filepath.Join(out, fmt.Sprintf("hyphae-linux-%s.%s", arch, format))
}
