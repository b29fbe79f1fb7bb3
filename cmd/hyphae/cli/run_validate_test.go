package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// `hyphae run --api 127.0.0.1:9752x` is bad usage, said before anything
// starts: no embedded Redis is started (its directory is never made) and
// the message names the key, not another agent holding the port.
func TestRunRejectsBadAPIAddressBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	if err := agent.New().Init(io.Discard, dir, false); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	g := &globals{agent: agent.New(), stdout: &bytes.Buffer{}, stderr: &stderr}
	root := newRoot(g)
	root.SetArgs([]string{"run", "--data-dir", dir, "--api", "127.0.0.1:9752x", "--listen", "/ip4/127.0.0.1/tcp/0", "--no-mdns"})
	root.SetOut(g.stdout)
	root.SetErr(&stderr)
	err := root.ExecuteContext(t.Context())
	var ee *exitError
	if err == nil || !errors.As(err, &ee) || ee.code != ExitUsage {
		t.Fatalf("run --api 127.0.0.1:9752x: %v, want exit %d", err, ExitUsage)
	}
	if msg := err.Error(); !strings.Contains(msg, "api.listen") || !strings.Contains(msg, "9752x") || strings.Contains(msg, "another agent") {
		t.Errorf("error %q: want it to name api.listen and the bad port, and no hint about another agent", msg)
	}
	if _, err := os.Stat(filepath.Join(dir, "redis")); !os.IsNotExist(err) {
		t.Errorf("the embedded Redis was started (%s exists) before the address was checked", filepath.Join(dir, "redis"))
	}
}
