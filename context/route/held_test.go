package route

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// A job left to the bridge whose only registered runner is down waits for
// it, even though this agent's runner serves the type (seed 000 §4: the
// job goes to the tenant's runner), unless a record names this agent as
// a runner of the context too; with no record for the type at all, this
// agent runs it.
func TestRegisteredRunnerDownHoldsTheJob(t *testing.T) {
	down := fakePresence{peers: []*model.Peer{{PeerID: alpha, State: model.PeerDown, ScriptTypes: []string{"sh"}}}}
	o := bridgeOptions(down)
	q := Query{Context: 1, Type: "sh"}
	only := &fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: alpha}}}
	got, err := Resolve(context.Background(), only, q, o)
	if err != nil || got.Kind != Waits || !strings.Contains(got.Why, alpha) {
		t.Fatalf("registered runner down: %+v, %v; want Waits naming it", got, err)
	}
	withSelf := &fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: alpha}, {ID: 2, Pubkey: self}}}
	if got, err := Resolve(context.Background(), withSelf, q, o); err != nil || got.Kind != Here {
		t.Fatalf("this agent registered too: %+v, %v; want Here", got, err)
	}
	none := &fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: alpha, ScriptTypes: []string{"python"}}}}
	if got, err := Resolve(context.Background(), none, q, o); err != nil || got.Kind != Here {
		t.Fatalf("no record for the type: %+v, %v; want Here", got, err)
	}
}
