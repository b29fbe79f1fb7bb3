package executor_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hyphae-run/hyphae/testkit/need"
)

// A process that leaves the job's group and keeps its stdout open does not
// hold the job: once the script exits, output is read for a grace period
// only (the read deadline of the pipes), and the job ends with what it said.
func TestDetachedChildHoldingStdoutDoesNotHoldTheJob(t *testing.T) {
	need.Tool(t, "setsid", "util-linux")
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	script := "echo before\nsetsid sh -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile +
		"; exec sleep 60' &\nwhile [ ! -s " + pidFile + " ]; do sleep 0.01; done\necho after"
	key := submit(t, c, 1, 1, "sh", script)
	got := waitEnd(t, c, key)
	if got["status"] != "finished" {
		t.Fatalf("%s: %v", key, got)
	}
	if out := resultOf(t, got)["stdout"]; out != "before\nafter\n" {
		t.Fatalf("stdout %q", out)
	}
}
