package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hero job's log_path may name a file only inside the worker's own log
// directory, <DataDir>/hero/<worker_id>/logs: the agent writes it with
// its own rights, and a path to its key, token or config would overwrite
// them. A refusal ends the job error, names the directory, writes nothing
// and creates no directory.
func TestHeroLogPathConfined(t *testing.T) {
	h, c := heroHarness(t)
	logs := filepath.Join(h.dir, "hero", "w1", "logs")
	keep := map[string]string{"actor.key": "KEY", "api.token": "TOKEN", "hyphae.yaml": "roles: [runner]\n"}
	for name, body := range keep {
		if err := os.WriteFile(filepath.Join(h.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside the log directory that leads back to the data dir.
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(h.dir, filepath.Join(logs, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(h.dir, "api.token"), filepath.Join(logs, "token.log")); err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{
		"key":     filepath.Join(h.dir, "actor.key"),
		"token":   "../../../api.token",
		"config":  filepath.Join(logs, "..", "..", "..", "hyphae.yaml"),
		"symdir":  filepath.Join(logs, "up", "actor.key"),
		"symrel":  "up/hyphae.yaml",
		"symfile": "token.log",
		"mkdir":   filepath.Join(h.dir, "made-by-log-path", "x.log"),
		"tmp":     filepath.Join(os.TempDir(), "hyphae-hero-escape.log"),
		"dir":     ".",
	}
	for id, p := range refused {
		heroJob(t, c, id, `echo overwritten`, "log_path", p)
		heroPush(t, c, id)
	}
	heroJob(t, c, "rel", `echo rel-line`, "log_path", "sub/dir/job.log")
	heroJob(t, c, "abs", `echo abs-line`, "log_path", filepath.Join(logs, "abs.log"))
	heroPush(t, c, "rel", "abs")

	for id, p := range refused {
		rep, hj := heroAwait(t, c, id)
		if hj["status"] != "error" || !strings.Contains(hj["error"], logs) || !strings.HasPrefix(rep, "error: ") {
			t.Errorf("%s (log_path %s): reply %q, status %q, error %q; want error naming %s",
				id, p, rep, hj["status"], hj["error"], logs)
		}
	}
	for name, body := range keep {
		if b, err := os.ReadFile(filepath.Join(h.dir, name)); err != nil || string(b) != body {
			t.Errorf("%s now holds %q (%v), want %q", name, b, err, body)
		}
	}
	if _, err := os.Lstat(filepath.Join(h.dir, "made-by-log-path")); !os.IsNotExist(err) {
		t.Errorf("a refused log_path created a directory (%v)", err)
	}
	if _, err := os.Lstat(filepath.Join(os.TempDir(), "hyphae-hero-escape.log")); err == nil {
		os.Remove(filepath.Join(os.TempDir(), "hyphae-hero-escape.log"))
		t.Errorf("a log_path in the temporary directory was written")
	}

	for id, want := range map[string]string{"rel": filepath.Join(logs, "sub", "dir", "job.log"), "abs": filepath.Join(logs, "abs.log")} {
		if _, hj := heroAwait(t, c, id); hj["status"] != "finished" {
			t.Fatalf("%s: hash %v", id, hj)
		}
		b, err := os.ReadFile(want)
		if err != nil || !strings.Contains(string(b), id+"-line") {
			t.Errorf("%s: %s holds %q (%v)", id, want, b, err)
		}
		// get_job_logs reads log_path from the hash: it names the file written.
		if got := c.HGet(context.Background(), "hero:job:"+id, "log_path").Val(); got != want {
			t.Errorf("%s: log_path in the hash = %q, want %q", id, got, want)
		}
	}
}

// A hero job whose id is "logs" runs beside the worker's log directory,
// not in it: the logs of other jobs stay.
func TestHeroJobNamedLogsKeepsTheLogs(t *testing.T) {
	h, c := heroHarness(t)
	heroJob(t, c, "first", `echo first-line`, "log_path", "first.log")
	heroPush(t, c, "first")
	if _, hj := heroAwait(t, c, "first"); hj["status"] != "finished" {
		t.Fatalf("first: %v", hj)
	}
	heroJob(t, c, "logs", `echo from-logs`)
	heroPush(t, c, "logs")
	if rep, hj := heroAwait(t, c, "logs"); hj["status"] != "finished" || !strings.Contains(rep, "from-logs") {
		t.Fatalf("job logs: reply %q, %v", rep, hj)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "hero", "w1", "logs", "first.log"))
	if err != nil || !strings.Contains(string(b), "first-line") {
		t.Fatalf("the first job's log after a job named logs ran: %q %v", b, err)
	}
}
