package executor_test

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/executor"
	"github.com/hyphae-run/hyphae/testkit/need"
)

// With runner.user set (agent running as root), a job runs as that user in
// its own directory and its result still comes back.
func TestJobRunsAsConfiguredUser(t *testing.T) {
	need.Root(t, "start jobs as another user (CI runs as root)")
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody on this machine")
	}
	h := newHarness(t)
	base, err := os.MkdirTemp("", "hyuser")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o711); err != nil {
		t.Fatal(err)
	}
	cfg := h.config()
	cfg.DataDir = filepath.Join(base, "data")
	cfg.User = "nobody"
	h.start(t, cfg)
	c := h.client(t, 1)
	key := submit(t, c, 1, 1, "sh", `echo "uid=$(id -u)" >> "$HYPHAE_RESULT"; touch ../escape 2>/dev/null && echo "escaped=yes" >> "$HYPHAE_RESULT"; true`)
	got := waitEnd(t, c, key)
	res := resultOf(t, got)
	if got["status"] != "finished" || res["uid"] != nobody.Uid || res["escaped"] != "" {
		t.Fatalf("job = %v, result %v; want uid %s and no write outside its directory", got["status"], res, nobody.Uid)
	}
}

func TestUserNeedsSearchableDataDir(t *testing.T) {
	need.Root(t, "needs root")
	if _, err := user.Lookup("nobody"); err != nil {
		t.Skip("no user nobody on this machine")
	}
	h := newHarness(t)
	closed := t.TempDir() // mode 0700: others cannot search it
	cfg := h.config()
	cfg.DataDir = filepath.Join(closed, "data")
	cfg.User = "nobody"
	_, err := executor.New(cfg, parts(h.st), nil)
	if err == nil || !strings.Contains(err.Error(), "not searchable") {
		t.Fatalf("New = %v, want an error about the data dir's parents", err)
	}
}
