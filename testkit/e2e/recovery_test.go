package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A kill -9 of the agent mid-job, then a restart: the job ends finished
// (run again as a new attempt), never stuck in started.
func TestKill9MidJobThenRestartFinishesJob(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	marks := t.TempDir()
	p := startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	script := `echo x >> ` + filepath.Join(marks, "starts") + `; sleep 3; echo "ok=yes" >> "$HYPHAE_RESULT"`
	var j jobOut
	decode(t, hy(t, "job", "run", "--context", "1", "--json", "--retries", "2", "--script", script, "--data-dir", dir), &j)
	eventually(t, 30*time.Second, "the job to start", func() bool {
		b, _ := os.ReadFile(filepath.Join(marks, "starts"))
		return len(b) > 0
	})
	p.kill()

	startRun(t, dir, nil, localArgs()...)
	var got jobOut
	eventually(t, 90*time.Second, "the job to end after restart", func() bool {
		decode(t, hy(t, "job", "status", "1", j.Key, "--json", "--data-dir", dir), &got)
		return got.Status == "finished" || got.Status == "error"
	})
	if got.Status != "finished" || got.Result["ok"] != "yes" {
		t.Fatalf("after kill -9 and restart: %+v", got)
	}
	b, _ := os.ReadFile(filepath.Join(marks, "starts"))
	if n := strings.Count(string(b), "x"); n < 2 {
		t.Fatalf("job started %d times, want a re-run after the crash", n)
	}
}
