package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type pruneOut struct {
	DryRun    bool   `json:"dry_run"`
	OlderThan string `json:"older_than"`
	Total     struct {
		Jobs      int   `json:"jobs"`
		Dirs      int   `json:"dirs"`
		DiskBytes int64 `json:"disk_bytes"`
	} `json:"total"`
}

// hyphae prune removes ended jobs with their logs and job directories at
// once; --dry-run only says what would go; a context the agent lacks is
// an error.
func TestPruneCommand(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	startRun(t, dir, nil, localArgs()...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	var keys []string
	for range 3 {
		var j jobOut
		decode(t, hy(t, "job", "run", "--context", "1", "--type", "sh", "--script", "echo hi", "--wait", "--json", "--data-dir", dir), &j)
		keys = append(keys, j.Key)
	}
	jobs := filepath.Join(dir, "contexts", "1", "jobs")
	if n := dirCount(t, jobs); n != 3 {
		t.Fatalf("%d job directories, want 3", n)
	}

	var dry pruneOut
	decode(t, hy(t, "prune", "--dry-run", "--older-than", "0s", "--json", "--data-dir", dir), &dry)
	if !dry.DryRun || dry.Total.Jobs != 3 || dry.Total.Dirs != 3 || dirCount(t, jobs) != 3 {
		t.Fatalf("dry run: %+v, %d directories left; want 3 jobs that would go and nothing removed", dry, dirCount(t, jobs))
	}
	hy(t, "job", "status", "1", keys[0], "--data-dir", dir)

	out := hy(t, "prune", "--older-than", "0s", "--data-dir", dir)
	if !strings.Contains(out, "removed 3 jobs") || dirCount(t, jobs) != 0 {
		t.Fatalf("prune said %q, %d directories left", out, dirCount(t, jobs))
	}
	if _, _, err := hyTry("job", "status", "1", keys[0], "--data-dir", dir); exitCode(err) == 0 {
		t.Fatalf("job status of a pruned job succeeded")
	}
	if _, stderr, err := hyTry("prune", "--context", "5", "--data-dir", dir); exitCode(err) == 0 || !strings.Contains(stderr, "context 5") {
		t.Fatalf("prune of context 5: exit %d, %q", exitCode(err), stderr)
	}
}

// An agent configured with a retention section sweeps by itself: of the
// jobs run, only the newest max_jobs are left, with their directories, and
// a chatty job's log is cut to log_bytes in Redis.
func TestAgentSweepsByItself(t *testing.T) {
	t.Parallel()
	dir := newDataDir(t)
	cfg := filepath.Join(dir, "retention.yaml")
	if err := os.WriteFile(cfg, []byte("retention:\n  max_jobs: 1\n  interval: 200ms\n  log_bytes: 4KiB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startRun(t, dir, nil, append(localArgs(), "--config", cfg)...)
	hy(t, "context", "create", "--id", "1", "--data-dir", dir)
	var last jobOut
	for range 3 {
		decode(t, hy(t, "job", "run", "--context", "1", "--type", "sh", "--wait", "--json", "--data-dir", dir,
			"--script", `i=0; while [ $i -lt 2000 ]; do echo "line $i"; i=$((i+1)); done`), &last)
	}
	jobs := filepath.Join(dir, "contexts", "1", "jobs")
	eventually(t, 30*time.Second, "the agent to sweep all but the newest job", func() bool {
		var listed []jobOut
		decode(t, hy(t, "job", "list", "1", "--json", "--data-dir", dir), &listed)
		return len(listed) == 1 && listed[0].Key == last.Key && dirCount(t, jobs) == 1
	})
	logs := hy(t, "job", "logs", "1", last.Key, "--data-dir", dir)
	if len(logs) > 4096+200 || !strings.Contains(logs, "[hyphae] log truncated:") || !strings.Contains(logs, "line 1999") {
		t.Fatalf("job logs: %d bytes, want at most 4KiB with a truncation marker and the last line", len(logs))
	}
}

func dirCount(t *testing.T, dir string) int {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return len(es)
}
