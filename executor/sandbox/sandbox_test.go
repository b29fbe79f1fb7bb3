package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// lab is a data dir with the agent's secrets and two jobs' directories.
type lab struct {
	data, job, other string
}

func newLab(t testing.TB) lab {
	t.Helper()
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return labAt(t, base)
}

// labAt makes the lab's data dir, two jobs' directories and secrets
// under base.
func labAt(t testing.TB, base string) lab {
	t.Helper()
	l := lab{data: filepath.Join(base, "data")}
	l.job = filepath.Join(l.data, "contexts", "1", "jobs", "1-1-1")
	l.other = filepath.Join(l.data, "contexts", "2", "jobs", "1-9-1")
	for _, d := range []string{l.job, l.other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for path, body := range map[string]string{
		filepath.Join(l.data, "actor.key"):   "SECRET-KEY",
		filepath.Join(l.data, "api.token"):   "SECRET-TOKEN",
		filepath.Join(l.other, "secret.txt"): "OTHER-JOB",
	} {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// runIn runs script with sh, contained in the lab's job directory.
func runIn(t *testing.T, s *Sandbox, l lab, noNet bool, script string) (string, error) {
	t.Helper()
	if uid, gid, ok := s.IDs(1); ok {
		if err := os.Chown(l.job, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Path = "/bin/sh"
	cmd.Dir = l.job
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + l.job}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.Wrap(cmd, Job{Dir: l.job, Context: 1, NoNet: noNet}); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func mustContain(t *testing.T, l lab) *Sandbox {
	t.Helper()
	s, err := New(Config{DataDir: l.data})
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode() == "" {
		t.Fatalf("cannot contain on this machine: %s", s.Why())
	}
	return s
}

func TestContainedJobSeesOnlyItsOwnDirectory(t *testing.T) {
	l := newLab(t)
	s := mustContain(t, l)
	out, err := runIn(t, s, l, false, `
		cat `+l.data+`/actor.key 2>/dev/null && echo LEAK-KEY
		cat `+l.data+`/api.token 2>/dev/null && echo LEAK-TOKEN
		cat `+l.other+`/secret.txt 2>/dev/null && echo LEAK-OTHER
		ls `+l.data+`/contexts/2 2>/dev/null | grep . && echo LEAK-LIST
		touch `+l.data+`/planted 2>/dev/null && echo LEAK-WRITE
		touch /etc/planted 2>/dev/null && echo LEAK-ETC
		echo ok > result && cat result
		echo tmp > /tmp/x && cat /tmp/x
		ls /proc | grep -c '^[0-9]'
	`)
	if err != nil {
		t.Fatalf("job failed: %v: %s", err, out)
	}
	if strings.Contains(out, "LEAK") || strings.Contains(out, "SECRET") || strings.Contains(out, "OTHER-JOB") {
		t.Fatalf("contained job reached what it must not:\n%s", out)
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || lines[0] != "ok" || lines[1] != "tmp" {
		t.Fatalf("job could not use its own directory and /tmp:\n%s", out)
	}
	if n := lines[len(lines)-1]; n != "3" && n != "4" && n != "2" { // helper, sh, ls (and grep)
		t.Fatalf("job sees %s processes in /proc, want only its own", n)
	}
	if _, err := os.Stat(filepath.Join(l.data, "planted")); err == nil {
		t.Fatal("contained job wrote into the data dir")
	}
	if b, err := os.ReadFile(filepath.Join(l.job, "result")); err != nil || string(b) != "ok\n" {
		t.Fatalf("job's file not in its directory: %q %v", b, err)
	}
}

func TestContainedJobCannotSignalTheAgent(t *testing.T) {
	l := newLab(t)
	s := mustContain(t, l)
	out, err := runIn(t, s, l, false, "kill -9 "+strconv.Itoa(os.Getpid())+" 2>&1; kill -9 1 2>&1; echo survived")
	if err != nil {
		t.Fatalf("job failed: %v: %s", err, out)
	}
	if !strings.HasSuffix(out, "survived") {
		t.Fatalf("output %q", out)
	}
}

func TestNetworkNoneHasOnlyLoopback(t *testing.T) {
	l := newLab(t)
	s := mustContain(t, l)
	out, err := runIn(t, s, l, true, "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
	if err != nil {
		t.Fatalf("job failed: %v: %s", err, out)
	}
	if out != "lo" {
		t.Fatalf("interfaces in network none: %q, want lo only", out)
	}
}

// A contained job never runs as the host's root: as root the agent
// contains only by switching to the job's uid.
func TestContainedJobIsNotRoot(t *testing.T) {
	l := newLab(t)
	s := mustContain(t, l)
	out, err := runIn(t, s, l, false, "id -u; grep CapEff /proc/self/status")
	if err != nil {
		t.Fatalf("job: %v %s", err, out)
	}
	lines := strings.Split(out, "\n")
	if os.Geteuid() == 0 && (s.Mode() != ModeRoot || lines[0] == "0") {
		t.Fatalf("mode %s, uid %s: a root agent's contained job must run as another uid", s.Mode(), lines[0])
	}
	if !strings.HasSuffix(out, "0000000000000000") {
		t.Fatalf("a contained job holds capabilities: %s", out)
	}
}
