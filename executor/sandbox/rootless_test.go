package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// childEnv selects the part of a test that runs in the unprivileged child.
const childEnv = "HYPHAE_SANDBOX_TEST_CHILD"

// runChild runs this test binary's test name as uid 65534 (inside a user
// namespace that maps it to root when asRoot), with the lab's base in dir.
func runChild(t *testing.T, name, dir string) string {
	t.Helper()
	need.Root(t, "start a process as another user")
	exe := filepath.Join(dir, "sandbox.test")
	copyFile(t, exe)
	cmd := exec.Command(exe, "-test.run=^"+name+"$", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, childEnv + "=" + dir}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child %s: %v\n%s", name, err, out)
	}
	return string(out)
}

func copyFile(t *testing.T, dst string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// childDir makes a directory the unprivileged child owns.
func childDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hyphae-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRootlessAgentContainsThroughUserNamespaces(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("parent part")
	}
	out := runChild(t, "TestRootlessChild", childDir(t))
	if !strings.Contains(out, "--- PASS: TestRootlessChild") {
		t.Fatalf("rootless child did not pass:\n%s", out)
	}
}

// TestRootlessChild runs as uid 65534 (see the test above).
func TestRootlessChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestRootlessAgentContainsThroughUserNamespaces")
	}
	l := labIn(t, dir)
	s := mustContain(t, l)
	if s.Mode() != ModeUserNS {
		t.Fatalf("mode %q, want %q", s.Mode(), ModeUserNS)
	}
	out, err := runIn(t, s, l, false, `
		cat `+l.data+`/actor.key 2>/dev/null && echo LEAK-KEY
		cat `+l.other+`/secret.txt 2>/dev/null && echo LEAK-OTHER
		umount `+l.data+` 2>/dev/null && echo LEAK-UMOUNT
		unshare --mount --user umount -l `+l.data+` 2>/dev/null && echo LEAK-NESTED
		kill -9 `+strconv.Itoa(os.Getppid())+` 2>/dev/null && echo LEAK-KILL
		echo ok > result && cat result`)
	if err != nil {
		t.Fatalf("job failed: %v: %s", err, out)
	}
	if strings.Contains(out, "LEAK") || strings.Contains(out, "SECRET") || out != "ok" {
		t.Fatalf("rootless contained job:\n%s", out)
	}
}

func TestNoUserNamespacesRefusesWithTheFix(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("parent part")
	}
	out := runChild(t, "TestNoUserNamespacesChild", childDir(t))
	if !strings.Contains(out, "--- PASS: TestNoUserNamespacesChild") {
		t.Fatalf("child did not pass:\n%s", out)
	}
}

// TestNoUserNamespacesChild runs as root of a user namespace that may
// create no more (the test above), where neither way can contain.
func TestNoUserNamespacesChild(t *testing.T) {
	dir := os.Getenv(childEnv)
	if dir == "" {
		t.Skip("runs only as the child of TestNoUserNamespacesRefusesWithTheFix")
	}
	if os.Geteuid() != 0 { // first hop: into a user namespace of our own
		self, _ := os.Executable()
		cmd := exec.Command(self, os.Args[1:]...)
		cmd.Env = os.Environ()
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestNoUserNamespacesChild") {
			t.Fatalf("in a user namespace: %v\n%s", err, out)
		}
		return
	}
	if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0o644); err != nil {
		t.Fatal(err)
	}
	l := labIn(t, dir)
	s, err := New(Config{DataDir: l.data})
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() != "" {
		t.Fatalf("mode %q where nothing can contain", s.Mode())
	}
	cmd := exec.Command("/bin/true")
	err = s.Wrap(cmd, Job{Dir: l.job, Context: 1})
	if err == nil || !strings.Contains(err.Error(), "user namespaces") || !strings.Contains(err.Error(), "isolation: host") {
		t.Fatalf("Wrap: %v, want the refusal naming the fixes", err)
	}
}

// labIn is newLab under dir (owned by the child).
func labIn(t *testing.T, dir string) lab {
	t.Helper()
	base, err := os.MkdirTemp(dir, "lab")
	if err != nil {
		t.Fatal(err)
	}
	return labAt(t, base)
}
