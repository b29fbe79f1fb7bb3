package node_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A burst of jobs from one agent into another's context, submitted at
// once: each runs exactly once and its result comes home, all on direct
// streams (none fell back to gossipsub, whose default queues drop bursts).
func TestRemoteJobBurstOnDirectStreams(t *testing.T) {
	t.Parallel()
	requireShortcut(t, "direct")
	bob := startAgent(t, agentOpts{})
	alice := startAgent(t, agentOpts{bootstrap: []string{bob.addr(t)}})
	grantExecutor(t, bob, 5, alice.peerID())
	const n = 200
	jobs := make([]wire.JobView, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			alice.call(t, "job.run", map[string]any{"to": bob.peerID(), "context": 5, "type": "sh",
				"script": fmt.Sprintf(`echo "i=%d" >> "$HYPHAE_RESULT"`, i)}, &jobs[i])
		})
	}
	wg.Wait()
	for i, j := range jobs {
		got := waitJob(t, alice, j.ContextID, j.Key)
		if got.Status != "finished" || got.Result["i"] != fmt.Sprint(i) {
			t.Fatalf("job %d at home: %+v", i, got)
		}
	}
	var there []wire.JobView
	bob.call(t, "job.list", map[string]any{"context": 5, "limit": 0}, &there)
	if len(there) != n {
		t.Fatalf("bob has %d jobs in context 5, want %d (each run once)", len(there), n)
	}
	if v := metricValue(t, alice, `hyphae_bus_frames_sent_total{path="direct"}`); v < n {
		t.Errorf("alice sent %v frames on direct streams, want at least %d", v, n)
	}
	for _, a := range []*agent{alice, bob} {
		if v := metricValue(t, a, `hyphae_bus_frames_sent_total{path="fallback"}`); v != 0 {
			t.Errorf("%s fell back to gossipsub %v times", a.peerID(), v)
		}
	}
}
