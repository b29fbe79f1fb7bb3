package route

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
)

// fakeRecords is context 1's runner records; other contexts do not exist.
type fakeRecords struct {
	rs      []*model.Runner
	listErr error
	lists   int // calls of Runners
}

func (f *fakeRecords) Runner(_ context.Context, ctxID, id uint64) (*model.Runner, error) {
	if ctxID != 1 {
		return nil, fmt.Errorf("load: %w", ErrNoContext)
	}
	for _, r := range f.rs {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, fmt.Errorf("load runner:%d: %w", id, ErrNoRecord)
}

func (f *fakeRecords) Runners(context.Context, uint64, bool) ([]*model.Runner, error) {
	f.lists++
	return f.rs, f.listErr
}

// fakePresence is a peer table and the peers whose breaker is open.
type fakePresence struct {
	peers []*model.Peer
	open  map[string]bool
}

func (f fakePresence) Peers(context.Context) ([]*model.Peer, error) { return f.peers, nil }

func (f fakePresence) Refused(p string) (string, bool) { return "open", f.open[p] }

const self, alpha, beta = "peer-self", "peer-alpha", "peer-beta"

// checkPeer takes peer IDs that start with "peer-".
func checkPeer(s string) (string, error) {
	if !strings.HasPrefix(s, "peer-") {
		return "", errors.New("bad peer")
	}
	return s, nil
}

func records() *fakeRecords {
	return &fakeRecords{rs: []*model.Runner{
		{ID: 1, Pubkey: alpha},
		{ID: 2, Pubkey: self},
		{ID: 3, Local: true, ScriptTypes: []string{"ext"}},
		{ID: 4, Pubkey: "junk"},
		{ID: 5},
		{ID: 6, Pubkey: beta, ScriptTypes: []string{"python"}},
	}}
}

// The three callers' readings, as they pass them.
func apiOptions() Options {
	return Options{Self: self, EmptyIsSelf: true, SelfWord: true, AnyWord: true, RecordHere: true,
		PeerID: checkPeer, OnBad: Fail, Open: OpenDefer}
}

func flowOptions(pick string) Options {
	return Options{Self: self, LocalTypes: func() []string { return []string{"sh"} }, SelfWord: true,
		RecordHere: true, OnBad: Defer, Open: OpenLocalFirst,
		Pick: func(string, []string) string { return pick }}
}

func bridgeOptions(p Presence) Options {
	return Options{Self: self, LocalTypes: func() []string { return []string{"sh"} }, BareID: true,
		PeerID: checkPeer, OnBad: Wait, Open: OpenRegistered, Presence: p}
}

type routeCase struct {
	name string
	o    Options
	q    Query
	want Outcome
	err  string // a part of the error's text; "" for none
}

func TestResolveTargets(t *testing.T) {
	api, flow := apiOptions(), flowOptions("")
	up := fakePresence{peers: []*model.Peer{{PeerID: alpha, State: model.PeerUp, ScriptTypes: []string{"sh"}}}}
	br := bridgeOptions(up)
	q := func(to string) Query { return Query{Context: 1, To: to, Type: "sh"} }
	here, open := Outcome{Kind: Here}, Outcome{Kind: Open}
	to := func(p string) Outcome { return Outcome{Kind: Peer, Peer: p} }
	waits := func(why string) Outcome { return Outcome{Kind: Waits, Why: why} }
	cases := []routeCase{
		{"api: no target is self", api, q(""), here, ""},
		{"api: self", api, q("self"), here, ""},
		{"api: its own peer ID", api, q(self), here, ""},
		{"api: any is left to the bridge", api, q("any"), open, ""},
		{"api: a peer ID", api, q(alpha), to(alpha), ""},
		{"api: not a peer ID", api, q("x"), Outcome{}, `"x" is neither self, any nor a peer ID: bad peer`},
		{"api: a record of another agent", api, q("runner:1"), to(alpha), ""},
		{"api: a record of this agent", api, q("runner:2"), here, ""},
		{"api: a local record", api, q("runner:3"), here, ""},
		{"api: a record with a bad pubkey", api, q("runner:4"), Outcome{}, `runner:4 names "junk", which is not a peer ID`},
		{"api: a record with no pubkey", api, q("runner:5"), Outcome{}, `runner:5 names "", which is not a peer ID`},
		{"api: no such record", api, q("runner:9"), Outcome{}, "context 1 has no runner:9 (hyphae runner list 1)"},
		{"api: no such context", api, Query{Context: 2, To: "runner:1"}, Outcome{},
			"runner:1 names a runner record of context 2 here, and this agent has no context 2"},
		{"api: runner:0", api, q("runner:0"), Outcome{}, `"runner:0": want runner:<id>, the id a positive number`},
		{"api: runner:x", api, q("runner:x"), Outcome{}, `"runner:x": want runner:<id>`},

		{"flow: no target, served here", flow, q(""), here, ""},
		{"flow: self", flow, q("self"), here, ""},
		{"flow: its own peer ID", flow, q(self), here, ""},
		{"flow: a peer ID, as written", flow, q("x"), to("x"), ""},
		{"flow: any is a peer ID", flow, q("any"), to("any"), ""},
		{"flow: a record of another agent", flow, q("runner:1"), to(alpha), ""},
		{"flow: a record of this agent", flow, q("runner:2"), here, ""},
		{"flow: a record's pubkey, as written", flow, q("runner:4"), to("junk"), ""},
		{"flow: a record with no pubkey is left to the bridge", flow, q("runner:5"), open, ""},
		{"flow: no such record is left to the bridge", flow, q("runner:9"), open, ""},
		{"flow: runner:x is left to the bridge", flow, q("runner:x"), open, ""},

		{"bridge: no target: a registered runner up", br, q(""), to(alpha), ""},
		{"bridge: runner: alone is open", br, q("runner:"), to(alpha), ""},
		{"bridge: its own peer ID", br, q(self), here, ""},
		{"bridge: self is a peer ID", br, q("self"), waits(`runner "self" is neither a peer ID nor runner:<id>`), ""},
		{"bridge: any is a peer ID", br, q("any"), waits(`runner "any" is neither a peer ID nor runner:<id>`), ""},
		{"bridge: a peer ID", br, q(beta), to(beta), ""},
		{"bridge: a bare id is a record", br, q("1"), to(alpha), ""},
		{"bridge: a record naming this agent is its pubkey", br, q("runner:2"), to(self), ""},
		{"bridge: a local record has no pubkey", br, q("runner:3"), waits("runner:3 has no valid pubkey"), ""},
		{"bridge: a bad pubkey waits", br, q("runner:4"), waits("runner:4 has no valid pubkey"), ""},
		{"bridge: no such record waits", br, q("runner:9"), waits("runner:9: load runner:9: no such runner record"), ""},
		{"bridge: runner:x is a peer ID", br, q("runner:x"), waits(`runner "runner:x" is neither a peer ID nor runner:<id>`), ""},
	}
	runCases(t, cases)
}

func runCases(t *testing.T, cases []routeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), records(), c.q, c.o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Resolve = %+v, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Resolve = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// A failed lookup other than a missing record is job.run's error as it
// came, not a TargetError.
func TestResolveLookupErrorPassesThrough(t *testing.T) {
	boom := errors.New("redis down")
	rs := failing{boom}
	_, err := Resolve(context.Background(), rs, Query{Context: 1, To: "runner:1"}, apiOptions())
	var te *TargetError
	if !errors.Is(err, boom) || errors.As(err, &te) {
		t.Fatalf("err = %v; want %v itself", err, boom)
	}
}

type failing struct{ err error }

func (f failing) Runner(context.Context, uint64, uint64) (*model.Runner, error) { return nil, f.err }
func (f failing) Runners(context.Context, uint64, bool) ([]*model.Runner, error) {
	return nil, f.err
}
