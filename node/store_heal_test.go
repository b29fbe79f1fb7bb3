package node_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/testkit/need"
	"github.com/hyphae-run/hyphae/testkit/testlog"
)

// embeddedAgent starts an agent on its own embedded redis-server child (no
// redis.url), running until the test ends; Run's error arrives on done.
func embeddedAgent(t *testing.T) (n *node.Node, cl *api.Client, dir string, done <-chan error) {
	t.Helper()
	d, err := os.MkdirTemp("", "hy")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir = filepath.Join(d, "a")
	if _, err := node.Init(dir, false); err != nil {
		t.Fatal(err)
	}
	f := false
	cfg := &config.Config{DataDir: dir, API: config.API{Listen: "off"},
		Overlay: config.Overlay{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, MDNS: &f, NATPortMap: &f}}
	cfg.Defaults()
	guardConfig(t, cfg)
	log, _ := testlog.New(t, "pubsub")
	n, err = node.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc, stopped := make(chan error, 1), make(chan struct{})
	go func() { errc <- n.Run(ctx); close(stopped) }()
	t.Cleanup(func() { cancel(); <-stopped })
	cl = api.NewUnixClient(node.PathsFor(dir).Socket)
	eventually(t, 30*time.Second, "agent ready", func() bool {
		return cl.Call(context.Background(), "node.info", nil, nil) == nil
	})
	guardNode(t, n)
	return n, cl, dir, errc
}

// redisChildPid asks the agent's own redis-server for its pid.
func redisChildPid(t *testing.T, n *node.Node) int {
	t.Helper()
	db, err := n.Store().DB(1)
	if err != nil {
		t.Fatal(err)
	}
	info, err := db.Info(context.Background(), "server").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
			pid, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
	}
	t.Fatalf("no process_id in INFO server")
	return 0
}

// kill -9 of the agent's redis-server child: the agent restarts it, its
// data comes back, and jobs run again.
func TestKilledStoreChildHeals(t *testing.T) {
	t.Parallel()
	need.Tool(t, "redis-server", "redis-server")
	n, cl, dir, _ := embeddedAgent(t)
	ctx := context.Background()
	if err := cl.Call(ctx, "context.create", map[string]any{"id": 1}, nil); err != nil {
		t.Fatal(err)
	}
	// The context must be on disk (AOF, fsync every second) before the kill.
	eventually(t, 10*time.Second, "context in the AOF", func() bool {
		return exec.Command("grep", "-rqs", "context:1", filepath.Join(dir, "redis")).Run() == nil
	})
	pid := redisChildPid(t, n)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var v wire.JobView
	var last error
	eventually(t, 30*time.Second, "a job runs after the restart", func() bool {
		last = cl.Call(ctx, "job.run", map[string]any{"context": 1, "type": "sh",
			"script": `echo "ok=1" >> "$HYPHAE_RESULT"`, "wait": 30}, &v)
		if last != nil {
			t.Logf("job.run: %v", last)
		}
		return last == nil && v.Status == "finished"
	})
	if v.Result["ok"] != "1" {
		t.Fatalf("job after restart: %+v", v)
	}
	if got := redisChildPid(t, n); got == pid {
		t.Fatalf("redis-server pid %d unchanged after kill -9", got)
	}
}

// A redis-server child that cannot come back stops the agent with an error
// (exit non-zero, so systemd restarts it), and until then callers are told
// the store is unavailable, not that their context does not exist.
func TestStoreChildThatCannotComeBackStopsTheAgent(t *testing.T) {
	real := need.Tool(t, "redis-server", "redis-server")
	bin := t.TempDir()
	allow := filepath.Join(bin, "allow")
	wrapper := "#!/bin/sh\n[ -e " + allow + " ] || exit 1\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "redis-server"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(allow, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	n, cl, _, done := embeddedAgent(t)
	ctx := context.Background()
	if err := cl.Call(ctx, "context.create", map[string]any{"id": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(allow); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(redisChildPid(t, n), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cl.Call(ctx, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true"}, nil)
	if err == nil || strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("job.run with the store down: %v, want a store-unavailable error", err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "embedded store failed") {
			t.Fatalf("Run returned %v, want the store's failure", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the agent kept running with a dead store")
	}
}
