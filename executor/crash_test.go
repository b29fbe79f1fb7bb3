package executor_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/executor"
)

// startChild runs a Runner in a child process (this test binary re-executed).
func startChild(t *testing.T, h *harness, runnerID string, lease time.Duration) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", "HYPHAE_TEST_REDIS="+h.srv.URL,
		"HYPHAE_TEST_DATA_DIR="+h.dir, "HYPHAE_TEST_RUNNER_ID="+runnerID, "HYPHAE_TEST_LEASE="+lease.String())
	logf, err := os.Create(filepath.Join(t.TempDir(), "child.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		executor.RemoveCgroupsOf(executor.Config{DataDir: h.dir, RunnerID: runnerID})
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("child runner log:\n%s", b)
		}
	})
	return cmd
}

// crashScript runs long on attempt 1 (recording its pid) and finishes at
// once on later attempts.
func crashScript(marks string) string {
	return `if [ "$HYPHAE_ATTEMPT" = 1 ]; then echo $$ > ` + marks + `/pid.tmp; mv ` + marks + `/pid.tmp ` + marks + `/pid; while :; do sleep 1; done; fi
echo "ran_at_attempt=$HYPHAE_ATTEMPT" >> "$HYPHAE_RESULT"`
}

// killOnCleanup makes sure an orphaned job does not outlive the test.
func killOnCleanup(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
}

// kill -9 of a runner process mid-job, then a runner with the same id
// starts: it reclaims its processing list, kills the orphaned attempt and
// runs the job again as attempt 2, which finishes.
func TestKill9RestartSameRunner(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	child := startChild(t, h, "runner-a", 30*time.Second)
	key := submit(t, c, 1, 1, "sh", crashScript(marks), "retries", 1)
	pid := readPID(t, filepath.Join(marks, "pid"))
	killOnCleanup(t, pid)
	if st := c.HGet(t.Context(), key, "status").Val(); st != "started" {
		t.Fatalf("status before the crash: %q", st)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	h.start(t, h.config()) // same RunnerID "runner-a", same data dir
	got := waitEnd(t, c, key)
	if got["status"] != "finished" || got["attempt"] != "2" || resultOf(t, got)["ran_at_attempt"] != "2" {
		t.Fatalf("hash %v", got)
	}
	waitFor(t, "the orphaned attempt to be killed", func() bool { return processGone(pid) })
	if n := c.LLen(t.Context(), "processing:runner-a").Val(); n != 0 {
		t.Fatalf("processing list keeps %d", n)
	}
}

// kill -9 of a runner that never comes back: another runner's reaper
// finds the expired lease and puts the job back; it finishes there.
func TestKill9LeaseExpiryReaper(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	child := startChild(t, h, "runner-dead", time.Second)
	key := submit(t, c, 1, 1, "sh", crashScript(marks), "retries", 1)
	killOnCleanup(t, readPID(t, filepath.Join(marks, "pid")))
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	cfg := h.config()
	cfg.RunnerID = "runner-b"
	cfg.Lease = time.Second
	h.start(t, cfg)
	got := waitEnd(t, c, key)
	if got["status"] != "finished" || got["attempt"] != "2" {
		t.Fatalf("hash %v", got)
	}
	if n := c.LLen(t.Context(), "processing:runner-dead").Val(); n != 0 {
		t.Fatalf("dead runner's processing list keeps %d", n)
	}
}

// With no retries left, a job whose runner died ends error — never stuck
// in started.
func TestKill9NoRetriesFails(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 1)
	marks := t.TempDir()
	child := startChild(t, h, "runner-a", 30*time.Second)
	key := submit(t, c, 1, 1, "sh", crashScript(marks))
	killOnCleanup(t, readPID(t, filepath.Join(marks, "pid")))
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	h.start(t, h.config())
	got := waitEnd(t, c, key)
	if got["status"] != "error" || !strings.Contains(got["error"], "runner restarted while the job ran (no retries left)") {
		t.Fatalf("hash %v", got)
	}
}
