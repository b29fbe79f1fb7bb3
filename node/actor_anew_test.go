package node_test

import (
	"context"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The target remembers each sender's local actor id. When that actor is
// made anew — its grant revoked, the actor deleted by a Redis client and
// the pubkey granted again, under a new id — the sender's next job is let
// in under the new id, not refused under the old one.
func TestRemoteJobAfterSendersActorMadeAnew(t *testing.T) {
	t.Parallel()
	bob := startAgent(t, agentOpts{})
	alice := startAgent(t, agentOpts{bootstrap: []string{bob.addr(t)}})
	grantExecutor(t, bob, 2, alice.peerID())
	run := func() wire.JobView {
		var got wire.JobView
		alice.call(t, "job.run", map[string]any{"to": bob.peerID(), "context": 2, "type": "noop", "script": "-", "wait": 60}, &got)
		return got
	}
	if got := run(); got.Status != "finished" {
		t.Fatalf("first job: %+v", got)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, bob.redis.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	old, err := st.Registry.ActorByPubkey(ctx, alice.peerID())
	if err != nil {
		t.Fatal(err)
	}
	bob.call(t, "context.revoke", map[string]any{"id": 2, "actor": alice.peerID(), "role": "executor"}, nil)
	if err := st.Registry.DeleteActor(ctx, old.ID); err != nil {
		t.Fatal(err)
	}
	bob.call(t, "context.grant", map[string]any{"id": 2, "actor": alice.peerID(), "role": "executor"}, nil)
	now, err := st.Registry.ActorByPubkey(ctx, alice.peerID())
	if err != nil || now.ID == old.ID {
		t.Fatalf("actor made anew: %+v %v, old id %d", now, err, old.ID)
	}
	if got := run(); got.Status != "finished" {
		t.Fatalf("job after the actor was made anew: %+v", got)
	}
	jobs, err := st.Jobs.ListJobs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	callers := map[uint64]int{}
	for _, j := range jobs {
		callers[j.CallerID]++
	}
	if callers[old.ID] != 1 || callers[now.ID] != 1 {
		t.Errorf("jobs at bob by caller %v, want one under the old id %d and one under the new %d", callers, old.ID, now.ID)
	}
}
