package e2e

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// job run --wait on a job whose runner's link is cut says so as soon as
// the origin sees the runner down ("runner … unreachable for …,
// waiting"), instead of going silent until the job is given up on.
func TestCLIWaitSaysRunnerUnreachable(t *testing.T) {
	t.Parallel()
	o := newOutagePair(t, "")
	var stderr syncBuf
	cmd := exec.Command(bin, "job", "run", "--to", o.runnerID, "-c", "3", "--wait", "--data-dir", o.origin,
		"--script", "echo running; sleep 600")
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	eventually(t, 60*time.Second, "the wait to show the job's first log line", func() bool {
		return strings.Contains(stderr.String(), "| running")
	})
	o.cut(t)
	eventually(t, 60*time.Second, "the wait to say the runner is unreachable", func() bool {
		return strings.Contains(stderr.String(), "unreachable for")
	})
	if !strings.Contains(stderr.String(), "runner "+o.runnerID[:12]) {
		t.Fatalf("the note does not name the runner:\n%s", stderr.String())
	}
}
