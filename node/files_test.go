package node_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
)

// A job's outputs become its files: path, size, sha256 and mode of what
// its script wrote, in the job's view and job.files, the blob in the
// agent's content store.
func TestJobOutputsBecomeFiles(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{roles: []string{"supervisor", "runner"}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var v wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "wait": 60, "outputs": []string{"out/*.txt"},
		"script": "mkdir -p out && printf 'dump of the NAS' > out/db.txt && chmod 640 out/db.txt && echo skip > out/x.log"}, &v)
	if v.Status != "finished" || len(v.Files) != 1 {
		t.Fatalf("job %s %q: files %+v", v.Status, v.Error, v.Files)
	}
	sum := sha256.Sum256([]byte("dump of the NAS"))
	f := v.Files[0]
	if f.Path != "out/db.txt" || f.Size != 15 || f.SHA256 != hex.EncodeToString(sum[:]) || f.Mode != 0o640 {
		t.Fatalf("file %+v", f)
	}
	var fv wire.JobFilesView
	a.call(t, "job.files", wire.JobRef{Context: 1, Key: v.Key}, &fv)
	if len(fv.Files) != 1 || fv.Files[0] != f {
		t.Fatalf("job.files %+v", fv)
	}
	blob := filepath.Join(a.dir, "files", "blobs", f.SHA256[:2], f.SHA256)
	if b, err := os.ReadFile(blob); err != nil || string(b) != "dump of the NAS" {
		t.Fatalf("blob %s: %q %v", blob, b, err)
	}
}

// Bad outputs are refused with the reason: a pattern that leaves the job's
// directory at submission, a symlink out of it and a file past
// files.max_file_mb when the job ends (error, not retried).
func TestJobOutputsRefused(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{files: config.Files{MaxFileMB: 1, MaxJobMB: 2}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	err := a.client.Call(context.Background(), "job.run", map[string]any{"context": 1, "type": "sh", "script": "true",
		"outputs": []string{"../secret"}}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeInvalidParams || !strings.Contains(err.Error(), "outputs") ||
		!strings.Contains(err.Error(), "leaves the job's directory") {
		t.Fatalf("../secret: %v", err)
	}
	for _, tc := range []struct{ script, want string }{
		{"ln -s /etc/passwd pw", "symlink leaves the job's directory"},
		{"head -c 2097152 /dev/zero > big", "big"},
	} {
		var v wire.JobView
		a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "wait": 60, "retries": 2,
			"outputs": []string{"*"}, "script": tc.script}, &v)
		if v.Status != "error" || !strings.Contains(v.Error, tc.want) || v.Attempt != 1 || len(v.Files) != 0 {
			t.Fatalf("%q: %s attempt %d %q, want error naming %q", tc.script, v.Status, v.Attempt, v.Error, tc.want)
		}
		t.Logf("%q: %s", tc.script, v.Error)
	}
}

// Retention: a blob two jobs hold stays while one of them is left, and
// goes from the content store with the last.
func TestJobFilesGoWithTheirLastJob(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	var blob string
	for _, ctxID := range []uint64{1, 2} {
		a.call(t, "context.create", map[string]any{"id": ctxID}, nil)
		var v wire.JobView
		a.call(t, "job.run", map[string]any{"context": ctxID, "type": "sh", "wait": 60, "outputs": []string{"build.tar"},
			"script": "echo same bytes > build.tar"}, &v)
		if v.Status != "finished" || len(v.Files) != 1 {
			t.Fatalf("job %s %q: %+v", v.Status, v.Error, v.Files)
		}
		blob = filepath.Join(a.dir, "files", "blobs", v.Files[0].SHA256[:2], v.Files[0].SHA256)
	}
	exists := func() bool { _, err := os.Stat(blob); return err == nil }
	var pv wire.PruneView
	a.call(t, "node.prune", wire.PruneParams{Context: 1, OlderThan: "0s"}, &pv)
	if pv.Total.Jobs != 1 || !exists() {
		t.Fatalf("after the first job's prune (%+v): blob there %v, want kept for the other job", pv.Total, exists())
	}
	a.call(t, "node.prune", wire.PruneParams{Context: 2, OlderThan: "0s"}, &pv)
	if pv.Total.Jobs != 1 || exists() {
		t.Fatalf("after the last job's prune (%+v): blob there %v, want gone", pv.Total, exists())
	}
}
