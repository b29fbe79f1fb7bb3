package node_test

import (
	"strings"
	"testing"
	"time"
)

// A job the runner acknowledged but whose result never comes back within
// timeout_result ends error at the origin saying so, instead of hanging;
// the late result, when it finally arrives, is ignored.
func TestBridgeResultOverdueFailsJob(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 3}, nil)

	msgKey, jobKey := rawJobMessage(t, a, 3, 7, 1, 21, 2, b.peerID(), "sh", "sleep 4; echo late",
		"timeout_result", "1")
	got := waitRawJob(t, a, 3, jobKey)
	if got.Status != "error" || !strings.Contains(got.Error, "no result from") {
		t.Fatalf("origin job = %+v, want error: no result", got)
	}
	// The message follows the job (a second write: poll, do not race it).
	eventually(t, 10*time.Second, "the message to end error", func() bool {
		return hashField(t, a, 3, msgKey, "status") == "error"
	})
	// The runner finishes later; its result does not overwrite the error.
	eventually(t, 60*time.Second, "the runner's copy to finish", func() bool {
		jobs := remoteJobs(t, b, 2)
		return len(jobs) == 1 && jobs[0].Status == "finished"
	})
	eventually(t, 30*time.Second, "the late result to be acknowledged", func() bool {
		n, _ := b.redis.Client(t, 2).ZCard(t.Context(), "outbox").Result()
		return n == 0
	})
	if st := hashField(t, a, 3, jobKey, "status"); st != "error" {
		t.Fatalf("late result changed the origin job to %q", st)
	}
}
