package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Drain with a running job: the job finishes within the grace, the agent
// exits 0; a job that outlasts the grace ends "error: drained".
func TestDrainLetsRunningJobFinish(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	marks := t.TempDir()
	p := startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	started := filepath.Join(marks, "started")
	var j jobOut
	decode(t, hy(t, "job", "run", "--context", "1", "--json", "--data-dir", dir,
		"--script", "touch "+started+"; sleep 2; echo 'done=yes' >> \"$HYPHAE_RESULT\""), &j)
	eventually(t, 30*time.Second, "the job to start", func() bool { _, err := os.Stat(started); return err == nil })
	hy(t, "drain", "--data-dir", dir)
	// New work is refused while draining (or the agent is already gone).
	if _, stderr, err := hyTry("job", "run", "--context", "1", "--script", "true", "--data-dir", dir); err == nil {
		t.Fatalf("job accepted while draining: %s", stderr)
	}
	if err := p.wait(t, time.Minute); err != nil {
		t.Fatalf("agent exit after drain: %v\n%s", err, p.log)
	}
	startRun(t, dir, nil, localArgs()...)
	var got jobOut
	decode(t, hy(t, "job", "status", "1", j.Key, "--json", "--data-dir", dir), &got)
	if got.Status != "finished" || got.Result["done"] != "yes" {
		t.Fatalf("job after drain: %+v", got)
	}
}

func TestDrainGraceOverStopsJob(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("runner: {drain_grace: 1s}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	marks := t.TempDir()
	started := filepath.Join(marks, "started")
	p := startRun(t, dir, nil, append(localArgs(), "--config", cfg)...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	var j jobOut
	decode(t, hy(t, "job", "run", "--context", "1", "--json", "--data-dir", dir,
		"--script", "touch "+started+"; sleep 120"), &j)
	eventually(t, 30*time.Second, "the job to start", func() bool { _, err := os.Stat(started); return err == nil })
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.wait(t, time.Minute); err != nil {
		t.Fatalf("agent exit after SIGTERM: %v\n%s", err, p.log)
	}
	startRun(t, dir, nil, append(localArgs(), "--config", cfg)...)
	var got jobOut
	decode(t, hy(t, "job", "status", "1", j.Key, "--json", "--data-dir", dir), &got)
	if got.Status != "error" || !strings.Contains(got.Error, "drained") {
		t.Fatalf("job after drain grace: %+v", got)
	}
}
