package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// job.run's memory_mb and cpu reach the job the runner runs, bad values are
// refused with the field named, and node.info says how jobs are isolated.
func TestJobRunLimits(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var v wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "script": "true",
		"memory_mb": 64, "cpu": 0.5, "wait": 30}, &v)
	if v.Status != "finished" {
		t.Fatalf("job with limits: %+v", v)
	}
	j, err := a.Store().Jobs.LoadJobKey(context.Background(), 1, v.Key)
	if err != nil {
		t.Fatal(err)
	}
	if j.MemoryMB != 64 || j.CPU != 0.5 {
		t.Fatalf("job hash has memory_mb %d cpu %g, want 64 and 0.5", j.MemoryMB, j.CPU)
	}
	for field, p := range map[string]map[string]any{
		"cpu":       {"context": 1, "type": "sh", "script": "true", "cpu": 0.001},
		"memory_mb": {"context": 1, "type": "sh", "script": "true", "memory_mb": -1},
	} {
		err := a.client.Call(context.Background(), "job.run", p, nil)
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("job.run with a bad %s: %v, want an error naming it", field, err)
		}
	}
	var info wire.InfoView
	a.call(t, "node.info", nil, &info)
	if !strings.HasPrefix(info.Isolation, "cgroup2 at ") && !strings.HasPrefix(info.Isolation, "process groups") {
		t.Fatalf("node.info isolation = %q", info.Isolation)
	}
}
