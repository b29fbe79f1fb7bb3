package node_test

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// A full agent (store, runner, overlay, bridge, scheduler, API) that ran a
// job leaves no goroutines behind after Shutdown.
func TestShutdownLeavesNoGoroutines(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t) // its own wait goroutine lives until the test ends
	before := runtime.NumGoroutine()
	a := startAgent(t, agentOpts{redis: srv, tcpAPI: true})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true"}, &j)
	waitJob(t, a, 1, j.Key)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	a.client = nil
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		t.Fatalf("%d goroutines after shutdown, %d before:\n%s", n, before, trimStacks(stacks))
	}
}

// trimStacks keeps the first frame lines of each goroutine.
func trimStacks(s string) string {
	var out []string
	for _, g := range strings.Split(s, "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) > 5 {
			lines = lines[:5]
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}
