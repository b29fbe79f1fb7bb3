package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/node/invite"
)

// A code from a private network this agent is not on is refused before it
// is sent (so it stays unused), with the key written where the refusal says;
// the same key configured, it passes.
func TestJoinNeedsTheSwarmKeyFirst(t *testing.T) {
	dir := t.TempDir()
	h := &Handlers{Deps: Deps{Cfg: &config.Config{DataDir: dir}}}
	key := "/key/swarm/psk/1.0.0/\n/base16/\n" + strings.Repeat("ab", 32) + "\n"
	err := h.checkSwarm(&invite.Code{SwarmKey: key})
	path := filepath.Join(dir, "swarm.key")
	if err == nil || !strings.Contains(err.Error(), "private") || !strings.Contains(err.Error(), path) {
		t.Fatalf("checkSwarm = %v, want refused naming %s", err, path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != key {
		t.Fatalf("key written: %q, %v", b, err)
	}
	h.Cfg.Overlay.SwarmKey = path
	if err := h.checkSwarm(&invite.Code{SwarmKey: key}); err != nil {
		t.Fatalf("with the key configured: %v", err)
	}
}
