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

// A registered runner up whose record sets no types but which does not
// announce the job's type is taken only when this agent's runner does
// not serve the type: before, this agent runs it.
func TestUnannouncedRunnerAfterThisAgent(t *testing.T) {
	up := fakePresence{peers: []*model.Peer{{PeerID: alpha, State: model.PeerUp, ScriptTypes: []string{"python"}}}}
	rs := &fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: alpha}}}
	if got, err := Resolve(context.Background(), rs, Query{Context: 1, Type: "sh"}, bridgeOptions(up)); err != nil || got.Kind != Here {
		t.Fatalf("sh, served here, alpha announces only python: %+v, %v; want Here", got, err)
	}
	got, err := Resolve(context.Background(), rs, Query{Context: 1, Type: "v"}, bridgeOptions(up))
	if err != nil || got.Kind != Peer || got.Peer != alpha {
		t.Fatalf("v, served nowhere announced: %+v, %v; want alpha, whose record sets no types", got, err)
	}
}
