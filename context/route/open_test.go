package route

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// Jobs left to the agent: the scheduler prefers its own runner and takes
// its pick only when registered; the bridge prefers a registered runner
// up, skips one whose breaker is open, falls back to this agent, waits
// for a registered one down, and refuses a job nobody can run.
func TestResolveOpen(t *testing.T) {
	q := func(typ string) Query { return Query{Context: 1, Type: typ} }
	here, open := Outcome{Kind: Here}, Outcome{Kind: Open}
	to := func(p string) Outcome { return Outcome{Kind: Peer, Peer: p} }
	row := func(id string, state model.PeerState, load int64, types ...string) *model.Peer {
		return &model.Peer{PeerID: id, State: state, Load: load, Capacity: 1, ScriptTypes: types}
	}
	both := fakePresence{peers: []*model.Peer{row(alpha, model.PeerUp, 3, "sh", "python"), row(beta, model.PeerUp, 0, "python")}}
	alphaOpen := fakePresence{peers: both.peers, open: map[string]bool{beta: true}}
	down := fakePresence{peers: []*model.Peer{row(alpha, model.PeerDown, 0, "sh")}}
	refused := fakePresence{peers: []*model.Peer{row(alpha, model.PeerUp, 0, "python")}, open: map[string]bool{alpha: true}}
	cases := []routeCase{
		{"flow: served here, whatever Pick says", flowOptions(alpha), q("sh"), here, ""},
		{"flow: Pick's registered peer", flowOptions(alpha), q("python"), to(alpha), ""},
		{"flow: Pick's peer whose record limits its types", flowOptions(beta), q("ruby"), open, ""},
		{"flow: Pick's unregistered peer is left to the bridge", flowOptions("peer-stranger"), q("python"), open, ""},
		{"flow: no pick", flowOptions(""), q("python"), open, ""},
		{"api: any decides nothing", apiOptions(), Query{Context: 1, To: "any", Type: "python"}, open, ""},

		{"bridge: the least loaded registered runner up", bridgeOptions(both), q("python"), to(beta), ""},
		{"bridge: an open breaker skips a runner", bridgeOptions(alphaOpen), q("python"), to(alpha), ""},
		{"bridge: a registered runner before this agent", bridgeOptions(both), q("sh"), to(alpha), ""},
		{"bridge: this agent when no registered runner is up", bridgeOptions(down), q("sh"), here, ""},
		{"bridge: registered runners down wait", bridgeOptions(refused), q("python"), Outcome{Kind: Waits,
			Why: `waiting for a runner of type "python": no runner registered in context 1 that runs it is up ` +
				`(peer-alpha (circuit breaker open), junk, peer-beta)`}, ""},
		{"bridge: an external worker here", bridgeOptions(fakePresence{}), q("ext"), here, ""},
	}
	runCases(t, cases)
}

// The bridge's own runner serves a type no registered runner up runs.
func TestResolveOpenFallsBackHere(t *testing.T) {
	rs := &fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: alpha, ScriptTypes: []string{"python"}}}}
	got, err := Resolve(context.Background(), rs, Query{Context: 1, Type: "sh"}, bridgeOptions(fakePresence{}))
	if err != nil || got.Kind != Here {
		t.Fatalf("Resolve = %+v, %v; want here", got, err)
	}
}

// A refusal wraps ErrNoRunner, after the list was read again past its
// cache; a list that cannot be read waits.
func TestResolveOpenRefusesAfterAFreshList(t *testing.T) {
	rs := &fakeRecords{}
	_, err := Resolve(context.Background(), rs, Query{Context: 3, Type: "ruby"}, bridgeOptions(fakePresence{}))
	if !errors.Is(err, ErrNoRunner) || !strings.Contains(err.Error(), "hyphae runner create 3") || rs.lists != 2 {
		t.Fatalf("err = %v after %d lists; want ErrNoRunner after 2", err, rs.lists)
	}
	rs.listErr = errors.New("scan failed")
	got, _ := Resolve(context.Background(), rs, Query{Context: 3, Type: "ruby"}, bridgeOptions(fakePresence{}))
	if got.Kind != Waits || got.Why != "runner records: scan failed" {
		t.Fatalf("Resolve = %+v; want a wait on the records", got)
	}
}

// A pick whose record changed since the cached list is not used.
func TestResolveOpenConfirmsThePick(t *testing.T) {
	rs := &stale{fakeRecords: fakeRecords{rs: []*model.Runner{{ID: 1, Pubkey: beta}}}}
	p := fakePresence{peers: []*model.Peer{{PeerID: alpha, State: model.PeerUp, ScriptTypes: []string{"ruby"}}}}
	got, err := Resolve(context.Background(), rs, Query{Context: 1, Type: "ruby"}, bridgeOptions(p))
	if err != nil || got.Kind != Waits || got.Why != "the runner records changed while choosing" {
		t.Fatalf("Resolve = %+v, %v; want a wait: the record now names another agent", got, err)
	}
}

// stale lists a record naming alpha, which now names beta.
type stale struct{ fakeRecords }

func (s *stale) Runners(context.Context, uint64, bool) ([]*model.Runner, error) {
	return []*model.Runner{{ID: 1, Pubkey: alpha}}, nil
}
