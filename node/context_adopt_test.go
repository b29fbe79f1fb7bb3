package node_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The README's two-machine steps in order: bob, with no context yet, runs
// a job in alice's context 1, then creates his own context 1 for his
// flows. The context the agent made to record the job sent away is
// adopted: the create succeeds with bob's name, the job stays listed in
// it, and a second create of the same id is refused as usual.
func TestContextCreateAdoptsTheContextMadeForAJobSentAway(t *testing.T) {
	t.Parallel()
	alice := startAgent(t, agentOpts{})
	bob := startAgent(t, agentOpts{bootstrap: []string{alice.addr(t)}})
	grantExecutor(t, alice, 1, bob.peerID())

	var j wire.JobView
	bob.call(t, "job.run", map[string]any{"to": alice.peerID(), "context": 1, "type": "sh", "script": "uname -a"}, &j)
	if got := waitJob(t, bob, j.ContextID, j.Key); got.Status != "finished" {
		t.Fatalf("job sent to alice = %+v", got)
	}

	var c wire.ContextView
	bob.call(t, "context.create", map[string]any{"id": 1, "name": "flows"}, &c)
	if c.ID != 1 || c.Name != "flows" {
		t.Fatalf("context.create --id 1 on bob = %+v, want context 1 named flows", c)
	}
	var shown wire.ContextView
	bob.call(t, "context.load", map[string]any{"id": 1}, &shown)
	if shown.Name != "flows" || len(shown.Admins) != 1 {
		t.Errorf("bob's context 1 after create = %+v", shown)
	}
	if jobs := remoteJobs(t, bob, int(j.ContextID)); len(jobs) != 1 || jobs[0].Key != j.Key {
		t.Errorf("bob's context %d jobs = %+v, want the job sent to alice kept", j.ContextID, jobs)
	}
	err := bob.client.Call(context.Background(), "context.create", map[string]any{"id": 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second context.create --id 1 = %v, want already exists", err)
	}
}

// context.create with id 0 is refused: DB 0 is the agent's own. With no id
// the lowest free one is taken, as before.
func TestContextCreateRefusesIDZero(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	err := a.client.Call(context.Background(), "context.create", map[string]any{"id": 0}, nil)
	if err == nil || !strings.Contains(err.Error(), "no context 0") {
		t.Fatalf("context.create {id: 0} = %v, want it refused", err)
	}
	var c wire.ContextView
	a.call(t, "context.create", map[string]any{"name": "first"}, &c)
	if c.ID != 1 {
		t.Fatalf("context.create without id = context %d, want 1", c.ID)
	}
}
