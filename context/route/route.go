package route

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// Records is what Resolve reads of a context's runner records.
type Records interface {
	// Runner loads record runner:<id> of context ctxID. Errors that wrap
	// ErrNoContext or ErrNoRecord say which is missing (Fail words them).
	Runner(ctx context.Context, ctxID, id uint64) (*model.Runner, error)
	// Runners lists context ctxID's records; fresh asks past any cache.
	Runners(ctx context.Context, ctxID uint64, fresh bool) ([]*model.Runner, error)
}

// Presence is what OpenRegistered reads of the agents: the presence table
// (who is up, announcing which script types, how loaded) and the circuit
// breakers.
type Presence interface {
	Peers(ctx context.Context) ([]*model.Peer, error)
	// Refused reports whether peerID's circuit breaker refuses a job now,
	// and its state.
	Refused(peerID string) (state string, refused bool)
}

// Query is one job to route.
type Query struct {
	Context uint64   // the context whose runner records count
	To      string   // the target as written: "", self, any, a peer ID, runner:<id>
	Type    string   // the job's script type
	Avoid   []string // peers OpenLocalFirst's Pick leaves out (a lost runner's)
}

// Kind is what an Outcome says.
type Kind int

const (
	Here  Kind = iota // this agent runs it
	Peer              // the agent Outcome.Peer runs it
	Open              // not decided here: the bridge chooses when it sends
	Waits             // nobody can take it now (Outcome.Why); ask again later
)

// Outcome is where a job goes.
type Outcome struct {
	Kind Kind
	Peer string // Peer: its peer ID, in the form Options.PeerID keeps
	Why  string // Waits: the reason, for the message's error field
}

// OnBad is what a target that names nobody valid does.
type OnBad int

const (
	Fail  OnBad = iota // an error (*TargetError, or the lookup's error): job.run
	Defer              // Open: the bridge reads the target again when it sends (the scheduler)
	Wait               // Waits with the reason: the bridge, which tries again
)

// OpenRule is who runs a job whose target leaves the choice to the agent.
type OpenRule int

const (
	// OpenDefer decides nothing (Open): job.run --to any, which the
	// bridge routes when it sends.
	OpenDefer OpenRule = iota
	// OpenLocalFirst (the scheduler): here when this agent's runner
	// serves the type, else Pick's answer when a registered runner record
	// names it, else Open.
	OpenLocalFirst
	// OpenRegistered (the bridge): the least loaded registered runner up
	// that announces the type (Presence), else here when a local record
	// serves the type, else here when this agent's runner serves it (and
	// no registered runner that may run it is down, or a record names this
	// agent too), else Waits while a registered runner may run it later,
	// else a registered runner up whose record sets no types, else
	// ErrNoRunner.
	OpenRegistered
)

// Options are how one caller reads targets: the agent it runs in, and
// the places where job.run, the scheduler and the bridge differ.
type Options struct {
	Self       string          // this agent's peer ID
	LocalTypes func() []string // the script types its runner serves (nil: none)

	EmptyIsSelf bool // no target means this agent (job.run); else the agent chooses
	SelfWord    bool // "self" means this agent; else it is read as a peer ID (the bridge)
	AnyWord     bool // "any" leaves the choice to the agent; else it is read as a peer ID
	// BareID reads a target as the bridge reads a job's runner field:
	// runner:<id> or a bare <id> is a record, runner: alone is open, and
	// anything else that is no number is a peer ID, even runner:x.
	BareID bool
	// RecordHere makes a record naming this agent (local, or its pubkey
	// Self) mean here; without it (the bridge) its pubkey is the peer.
	RecordHere bool
	// PeerID checks a peer ID of a target or record and returns the form
	// the Outcome keeps; nil takes it as written (the scheduler, whose
	// messages the bridge checks when it sends them).
	PeerID func(string) (string, error)

	OnBad OnBad
	Open  OpenRule
	// Pick is OpenLocalFirst's presence pick: a peer for the type, not
	// one of avoid ("": none).
	Pick func(typ string, avoid []string) string
	// Presence is what OpenRegistered ranks registered runners by.
	Presence Presence
}

// Resolve says where job q goes, by the rule in the package doc read as o
// says. An error is a target that can never be served (OnBad Fail), a
// failed lookup there, or, for a job left to the agent, ErrNoRunner.
func Resolve(ctx context.Context, rs Records, q Query, o Options) (Outcome, error) {
	r := &resolver{rs: rs, q: q, o: o}
	to := q.To
	switch {
	case to == "" && o.EmptyIsSelf, to == "self" && o.SelfWord, to != "" && to == o.Self:
		return Outcome{Kind: Here}, nil
	case to == "", to == "any" && o.AnyWord:
		return r.open(ctx)
	}
	if o.BareID {
		rest := strings.TrimPrefix(to, "runner:")
		if rest == "" {
			return r.open(ctx)
		}
		if id, err := strconv.ParseUint(rest, 10, 64); err == nil {
			return r.record(ctx, id)
		}
		return r.peer(to)
	}
	if rest, ok := strings.CutPrefix(to, "runner:"); ok {
		id, err := strconv.ParseUint(rest, 10, 64)
		if err != nil || id == 0 {
			return r.bad(fault{kind: badForm, to: to})
		}
		return r.record(ctx, id)
	}
	return r.peer(to)
}

// resolver is one Resolve call.
type resolver struct {
	rs Records
	q  Query
	o  Options
}

// record resolves runner:<id> through its record: the agent its pubkey
// names, or here (RecordHere) when it names this agent. A record with no
// pubkey names nobody, even when Self is unset, unless it is local.
func (r *resolver) record(ctx context.Context, id uint64) (Outcome, error) {
	rn, err := r.rs.Runner(ctx, r.q.Context, id)
	if err != nil {
		return r.bad(fault{kind: badLookup, to: r.q.To, id: id, err: err})
	}
	if r.o.RecordHere && (rn.Local || rn.Pubkey != "" && rn.RunsHere(r.o.Self)) {
		return Outcome{Kind: Here}, nil
	}
	p, err := r.peerID(rn.Pubkey)
	if err != nil {
		return r.bad(fault{kind: badPubkey, to: r.q.To, id: id, pubkey: rn.Pubkey})
	}
	return Outcome{Kind: Peer, Peer: p}, nil
}

// peer is a target that names a peer ID.
func (r *resolver) peer(to string) (Outcome, error) {
	p, err := r.peerID(to)
	if err != nil {
		return r.bad(fault{kind: badPeer, to: to, err: err})
	}
	return Outcome{Kind: Peer, Peer: p}, nil
}

// peerID checks s with PeerID; with none, only that it is not empty.
func (r *resolver) peerID(s string) (string, error) {
	if r.o.PeerID != nil {
		return r.o.PeerID(s)
	}
	if s == "" {
		return "", errNoPeer
	}
	return s, nil
}

// open is a job left to the agent, by Options.Open.
func (r *resolver) open(ctx context.Context) (Outcome, error) {
	switch r.o.Open {
	case OpenLocalFirst:
		return r.localFirst(ctx), nil
	case OpenRegistered:
		return r.registered(ctx)
	}
	return Outcome{Kind: Open}, nil
}

// servesHere reports whether this agent's runner serves the job's type.
func (r *resolver) servesHere() bool {
	return r.o.LocalTypes != nil && slices.Contains(r.o.LocalTypes(), r.q.Type)
}
