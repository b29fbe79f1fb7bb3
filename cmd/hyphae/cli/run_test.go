package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// The flags' effect on the config is tested in cmd/hyphae/agent, which
// reads them.

func TestRunRejectsBadConfigBeforeStarting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	os.WriteFile(file, []byte("rolez: [runner]\n"), 0o600)
	code := Main(t.Context(), agent.New(), []string{"run", "--data-dir", dir, "--config", file})
	if code != ExitUsage {
		t.Fatalf("exit %d, want %d", code, ExitUsage)
	}
}
