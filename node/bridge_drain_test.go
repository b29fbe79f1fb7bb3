package node_test

import (
	"context"
	"testing"
	"time"
)

// An agent that drains while the origin of its running job is gone lets
// the job finish and stops: it does not wait out its grace for an ack that
// cannot come, and the result stays in its outbox, to go out again at the
// next start.
func TestDrainWithOriginGoneKeepsResultInOutbox(t *testing.T) {
	t.Parallel()
	const grace = 10 * time.Minute
	b := startAgent(t, agentOpts{grace: grace})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	grantExecutor(t, b, 2, a.peerID())
	a.call(t, "context.create", map[string]any{"id": 3}, nil)
	rawJobMessage(t, a, 3, 7, 1, 21, 2, b.peerID(), "sh", "sleep 2; echo late")
	var key string
	eventually(t, 30*time.Second, "the job to start at b", func() bool {
		jobs := remoteJobs(t, b, 2)
		if len(jobs) == 1 && jobs[0].Status == "started" {
			key = jobs[0].Key
		}
		return key != ""
	})
	a.stop(t)

	// With a minute to stop in, the drain gets 50 s; the old drain waited
	// all of it for the origin's ack.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if took := time.Since(start); took > 25*time.Second {
		t.Fatalf("shutdown took %v: it waited for an ack from a peer that is gone", took)
	}
	db := b.redis.Client(t, 2)
	if st := db.HGet(context.Background(), key, "status").Val(); st != "finished" {
		t.Fatalf("b's copy of the job is %q, want finished", st)
	}
	if n := db.ZCard(context.Background(), "outbox").Val(); n != 1 {
		t.Fatalf("b's outbox holds %d messages, want the result", n)
	}
}
