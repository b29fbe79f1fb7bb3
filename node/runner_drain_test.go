package node_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// An agent whose drain grace runs out while a job runs kills the job and
// stops without an error: that is how the drain ends such a job, not a
// failed shutdown (the agent exits 0; systemd does not restart it).
func TestDrainGraceOverIsNoShutdownError(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{grace: 100 * time.Millisecond})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	marks := t.TempDir()
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh",
		"script": "touch " + marks + "/started; sleep 60"}, &j)
	eventually(t, 30*time.Second, "the job to start", func() bool {
		_, err := os.Stat(filepath.Join(marks, "started"))
		return err == nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown after the drain grace: %v", err)
	}
	db := a.redis.Client(t, 1)
	if got := db.HGetAll(context.Background(), j.Key).Val(); got["status"] != "error" || got["error"] != "drained" {
		t.Fatalf("job after the drain: %v", got)
	}
}
