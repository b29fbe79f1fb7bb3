package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hyphae job retry runs a failed job again as its next attempt; a
// finished job is refused.
func TestJobRetryThroughTheCLI(t *testing.T) {
	t.Parallel()
	a := startFlowAgent(t, "a", "")
	a.hy(t, "context", "create", "--id", "1")
	dir := t.TempDir()
	var j struct {
		Key     string `json:"key"`
		Status  string `json:"status"`
		Attempt int64  `json:"attempt"`
		Error   string `json:"error"`
	}
	out, _, err := hyTry("job", "run", "--context", "1", "--wait", "--json", "--env", "M="+dir,
		"--script", `test -f "$M/ok" || exit 3`, "--data-dir", a.dir)
	if err == nil {
		t.Fatal("the first attempt should fail")
	}
	decode(t, out, &j)
	if j.Status != "error" {
		t.Fatalf("first attempt: %+v", j)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	decode(t, a.hy(t, "job", "retry", "1", j.Key, "--wait", "--json"), &j)
	if j.Status != "finished" || j.Attempt != 2 || j.Error != "" {
		t.Fatalf("retry: %+v, want finished at attempt 2", j)
	}
	_, errOut, err := hyTry("job", "retry", "1", j.Key, "--data-dir", a.dir)
	if err == nil || !strings.Contains(errOut, "finished") {
		t.Fatalf("retry of a finished job: %v %q, want refused", err, errOut)
	}
}
