package node_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/testkit/testlog"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// A stop asked for while the agent is still starting (SIGTERM cancels
// Run's context) is no failure: Run stops what started and returns nil,
// so the process exits 0 as for any stop (systemd, the PRD's graceful
// shutdown).
func TestRunStoppedWhileStartingIsNoError(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t)
	d, err := os.MkdirTemp("", "hy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir := filepath.Join(d, "a")
	if _, err := node.Init(dir, false); err != nil {
		t.Fatal(err)
	}
	f := false
	cfg := &config.Config{DataDir: dir, Redis: config.Redis{URL: srv.URL}, API: config.API{Listen: "off"},
		Overlay: config.Overlay{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, MDNS: &f, NATPortMap: &f},
		Runner:  config.Runner{DrainGrace: time.Second}}
	cfg.Defaults()
	log, _ := testlog.New(t)
	n, err := node.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the signal came before the first step
	if err := n.Run(ctx); err != nil {
		t.Fatalf("Run stopped while starting: %v; want nil (a stop, not a failure)", err)
	}
}
