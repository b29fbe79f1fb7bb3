package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesNASBackup is the README's NAS backup as a user runs it: the
// dump is made on one agent (contained there, as a job from another actor
// runs by default), the upload job on another finds it under in/dump/ with
// the sha256 the dump recorded, job files lists it, and job get fetches
// it from the agent that made it, checked by sha256.
func TestFilesNASBackup(t *testing.T) {
	t.Parallel()
	nas := startFlowAgent(t, "nas", "runner:\n  isolation:\n    remote: contained\n")
	home := startFlowAgent(t, "home", "", "--bootstrap", nas.addr(t))
	home.hy(t, "context", "create", "--id", "1")
	nas.hy(t, "context", "create", "--id", "1")
	nas.hy(t, "context", "grant", "1", "--actor", home.peer, "--role", "executor")
	home.waitPeerUp(t, nas.peer, "sh")

	flow := writeFlow(t, `
name: nas-backup
context: 1
jobs:
  dump:
    type: sh
    runner: `+nas.peer+`
    outputs: [db.sql.gz]
    script: printf 'CREATE TABLE photos;\n' | gzip -n > db.sql.gz
  upload:
    type: sh
    needs: dump
    script: |
      echo "sha=$(sha256sum "$HYPHAE_IN_DUMP_DIR/db.sql.gz" | cut -d' ' -f1)" >> "$HYPHAE_RESULT"
`)
	var f struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Jobs   []struct {
			Name   string            `json:"name"`
			Key    string            `json:"key"`
			Error  string            `json:"error"`
			Result map[string]string `json:"result"`
		} `json:"jobs"`
	}
	decode(t, home.hy(t, "flow", "run", flow, "--wait", "--json"), &f)
	if f.Status != "finished" || len(f.Jobs) != 2 {
		t.Fatalf("flow %s: %s %+v", f.Status, f.Error, f.Jobs)
	}
	dumpKey, uploaded := f.Jobs[0].Key, f.Jobs[1].Result["sha"]

	var files struct {
		Files []struct {
			Path   string `json:"path"`
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
		RanOn string `json:"ran_on"`
	}
	decode(t, home.hy(t, "job", "files", "-c", "1", dumpKey, "--json"), &files)
	if len(files.Files) != 1 || files.Files[0].Path != "db.sql.gz" || files.RanOn != nas.peer {
		t.Fatalf("job files: %+v", files)
	}
	if uploaded != files.Files[0].SHA256 {
		t.Fatalf("upload saw sha256 %q, the dump recorded %q", uploaded, files.Files[0].SHA256)
	}
	if st := home.hy(t, "job", "status", "-c", "1", dumpKey); !strings.Contains(st, "db.sql.gz") {
		t.Fatalf("job status does not show the file:\n%s", st)
	}

	out := t.TempDir()
	got := home.hy(t, "job", "get", "-c", "1", dumpKey, "-o", out)
	b, err := os.ReadFile(filepath.Join(out, "db.sql.gz"))
	if err != nil {
		t.Fatalf("job get printed %q: %v", got, err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != files.Files[0].SHA256 || !strings.Contains(got, files.Files[0].SHA256) {
		t.Fatalf("job get wrote %d bytes with another sha256; printed %q", len(b), got)
	}
	if _, stderr, err := hyTry("job", "get", "-c", "1", dumpKey, "nope.txt", "-o", out, "--data-dir", home.dir); exitCode(err) != 1 ||
		!strings.Contains(stderr, "the job has no file nope.txt") {
		t.Fatalf("job get of a file the job lacks: exit %d, stderr %q", exitCode(err), stderr)
	}
}

// TestFilesOutputFlag: job run --output makes the job's files; a name that
// leaves the job's directory is refused before the job runs.
func TestFilesOutputFlag(t *testing.T) {
	t.Parallel()
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	out := a.hy(t, "job", "run", "-c", "1", "--script", "mkdir -p dist && echo app > dist/app.bin", "--output", "dist/*", "--wait")
	if !strings.Contains(out, "files: (hyphae job get") || !strings.Contains(out, "dist/app.bin") {
		t.Fatalf("job run --output --wait printed:\n%s", out)
	}
	_, stderr, err := hyTry("job", "run", "-c", "1", "--script", "true", "--output", "../etc", "--data-dir", a.dir)
	if err == nil || !strings.Contains(stderr, "outputs") || !strings.Contains(stderr, "leaves the job's directory") {
		t.Fatalf("--output ../etc: %v, stderr %q", err, stderr)
	}
}

// TestFilesInputFlag: job run --input ships a local file into the job's
// in/ folder, on this agent and on another, which fetches it from here
// (and runs the job contained, as a job from another actor runs by
// default: it reads its in/ all the same).
func TestFilesInputFlag(t *testing.T) {
	t.Parallel()
	b := startFlowAgent(t, "b", "runner:\n  isolation:\n    remote: contained\n")
	a := startFlowAgent(t, "a", "", "--bootstrap", b.addr(t))
	a.hy(t, "context", "create", "--id", "1")
	b.hy(t, "context", "create", "--id", "1")
	b.hy(t, "context", "grant", "1", "--actor", a.peer, "--role", "executor")
	a.waitPeerUp(t, b.peer, "sh")
	local := filepath.Join(t.TempDir(), "app.toml")
	content := "listen = \":8080\"\n"
	if err := os.WriteFile(local, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(content))
	want := hex.EncodeToString(sum[:])
	for _, to := range []string{"self", b.peer} {
		var j struct {
			Status string            `json:"status"`
			Error  string            `json:"error"`
			Result map[string]string `json:"result"`
		}
		decode(t, a.hy(t, "job", "run", "-c", "1", "--to", to, "--input", local+":conf/app.toml", "--wait", "--json",
			"--script", `echo "sha=$(sha256sum "$HYPHAE_IN_DIR/conf/app.toml" | cut -d' ' -f1)" >> "$HYPHAE_RESULT"; echo "mode=$(stat -c %a in/conf/app.toml)" >> "$HYPHAE_RESULT"`), &j)
		if j.Status != "finished" || j.Result["sha"] != want || j.Result["mode"] != "640" {
			t.Fatalf("--to %s: %s %q, result %v; want sha %s mode 640", to, j.Status, j.Error, j.Result, want)
		}
	}
	// The same files under the same idempotency key are the same
	// submission, though each run uploads them anew.
	var first, again struct {
		Key            string `json:"key"`
		Deduplicated   bool   `json:"deduplicated"`
		ContentDiffers bool   `json:"content_differs"`
	}
	decode(t, a.hy(t, "job", "run", "-c", "1", "--input", local, "--idempotency-key", "cfg-1", "--script", "true", "--json"), &first)
	decode(t, a.hy(t, "job", "run", "-c", "1", "--input", local, "--idempotency-key", "cfg-1", "--script", "true", "--json"), &again)
	if !again.Deduplicated || again.ContentDiffers || again.Key != first.Key {
		t.Fatalf("the same submission again: %+v, first %+v", again, first)
	}
	_, stderr, err := hyTry("job", "run", "-c", "1", "--input", local+":../x", "--script", "true", "--data-dir", a.dir)
	if exitCode(err) != 2 || !strings.Contains(stderr, "want FILE or FILE:NAME") {
		t.Fatalf("--input with ..: exit %d, stderr %q", exitCode(err), stderr)
	}
}
