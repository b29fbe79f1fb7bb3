package route

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// Jobs left to the agent go only to a registered runner (a runner:<id>
// record whose pubkey names another agent, and whose script_types, when
// set, include the job's type) or stay here; presence only ranks them.

// offers reports whether record rn lets another agent run type typ.
func offers(rn *model.Runner, typ string) bool {
	return !rn.Local && rn.Pubkey != "" && serves(rn, typ)
}

// serves reports whether rn's script_types, when set, include typ.
func serves(rn *model.Runner, typ string) bool {
	return len(rn.ScriptTypes) == 0 || slices.Contains(rn.ScriptTypes, typ)
}

// localFirst is OpenLocalFirst: here, else Pick's peer when a record
// offers it the type, else Open (the bridge, which holds to the same
// rule, chooses when it sends).
func (r *resolver) localFirst(ctx context.Context) Outcome {
	if r.servesHere() {
		return Outcome{Kind: Here}
	}
	if r.o.Pick == nil {
		return Outcome{Kind: Open}
	}
	p := r.o.Pick(r.q.Type, r.q.Avoid)
	if p == "" {
		return Outcome{Kind: Open}
	}
	rs, err := r.rs.Runners(ctx, r.q.Context, false)
	if err != nil {
		return Outcome{Kind: Open}
	}
	for _, rn := range rs {
		if rn.Pubkey == p && offers(rn, r.q.Type) {
			return Outcome{Kind: Peer, Peer: p}
		}
	}
	return Outcome{Kind: Open}
}

// registered is OpenRegistered. The cached list of records is read again
// when it names no runner for the type (one registered since counts), and
// a pick is confirmed against its record (a revoked one is never used).
func (r *resolver) registered(ctx context.Context) (Outcome, error) {
	peers, err := r.o.Presence.Peers(ctx)
	if err != nil {
		return Outcome{Kind: Waits, Why: "peer table: " + err.Error()}, nil
	}
	peers = r.hideRefused(peers)
	typ := r.q.Type
	for pass := 0; pass < 2; pass++ {
		rs, err := r.rs.Runners(ctx, r.q.Context, pass > 0)
		if err != nil {
			return Outcome{Kind: Waits, Why: "runner records: " + err.Error()}, nil
		}
		c := choose(rs, peers, typ, r.o.Self)
		switch {
		case c.runner != nil:
			if p, ok := r.confirm(ctx, c.runner); ok {
				return Outcome{Kind: Peer, Peer: p}, nil
			}
			continue // the list predates a change: read it again
		case declaresExternal(rs, typ): // an external worker here runs it
			return Outcome{Kind: Here}, nil
		case r.servesHere() && (len(c.waiting) == 0 || r.registeredHere(rs)):
			return Outcome{Kind: Here}, nil
		case c.unannounced != nil && len(c.waiting) == 0:
			if p, ok := r.confirm(ctx, c.unannounced); ok {
				return Outcome{Kind: Peer, Peer: p}, nil
			}
			continue
		case len(c.waiting) > 0: // a registered runner down holds it (seed 000 §4: it goes to the tenant)
			return Outcome{Kind: Waits, Why: fmt.Sprintf("waiting for a runner of type %q: no runner registered in context %d "+
				"that runs it is up (%s)", typ, r.q.Context, strings.Join(r.breakerNotes(c.waiting), ", "))}, nil
		case pass == 0:
			continue // a runner registered since the list was read counts
		}
		return Outcome{}, &noRunnerError{ctxID: r.q.Context, typ: typ}
	}
	return Outcome{Kind: Waits, Why: "the runner records changed while choosing"}, nil
}

// registeredHere reports whether a record of rs names this agent as a
// runner of the job's type.
func (r *resolver) registeredHere(rs []*model.Runner) bool {
	return slices.ContainsFunc(rs, func(rn *model.Runner) bool {
		return !rn.Local && rn.Pubkey == r.o.Self && serves(rn, r.q.Type)
	})
}

// declaresExternal reports whether a local record (an external worker on
// this agent) serves typ.
func declaresExternal(rs []*model.Runner, typ string) bool {
	return slices.ContainsFunc(rs, func(rn *model.Runner) bool { return rn.Local && serves(rn, typ) })
}

// confirm reads record c again and returns its agent if the record still
// offers it the job's type: a list from a cache may predate a revocation.
func (r *resolver) confirm(ctx context.Context, c *model.Runner) (string, bool) {
	now, err := r.rs.Runner(ctx, r.q.Context, c.ID)
	if err != nil || now.Pubkey != c.Pubkey || now.Local || !serves(now, r.q.Type) {
		return "", false
	}
	p, err := r.peerID(now.Pubkey)
	return p, err == nil
}

// choice is where registered runners let a job of one type go.
type choice struct {
	runner *model.Runner // the least loaded registered runner up that announces the type; nil: none
	// unannounced is the least loaded one up whose record sets no types
	// and that does not announce the type: an external worker there may
	// serve it (after this agent's own runner, which does).
	unannounced *model.Runner
	waiting     []string // registered runners that may run it but cannot now (down, or not announcing it)
}

// choose picks among the runners registered in a context (rs) for a job
// of type typ. The record is the authority and the peer table (peers) a
// hint: a candidate is a record of another agent (not self, not local)
// whose script_types, when set, include typ, and whose agent is up. The
// least loaded that announces typ is runner; the least loaded that does
// not but whose record sets no types is unannounced: the agent may serve
// typ with an external worker it does not announce (seed 000 §4). A
// record that may run typ but whose agent is down or never heard of is
// waiting.
func choose(rs []*model.Runner, peers []*model.Peer, typ, self string) choice {
	rows := make(map[string]*model.Peer, len(peers))
	for _, p := range peers {
		rows[p.PeerID] = p
	}
	var c choice
	var cands [2][]*model.Runner // announcing typ; up, record without types
	seen := map[string]bool{}
	for _, rn := range rs {
		if rn.RunsHere(self) || !offers(rn, typ) || seen[rn.Pubkey] {
			continue
		}
		seen[rn.Pubkey] = true
		row := rows[rn.Pubkey]
		switch up := row != nil && row.State == model.PeerUp; {
		case up && slices.Contains(row.ScriptTypes, typ):
			cands[0] = append(cands[0], rn)
		case up && len(rn.ScriptTypes) == 0:
			cands[1] = append(cands[1], rn)
		default:
			c.waiting = append(c.waiting, rn.Pubkey)
		}
	}
	pick := func(tier []*model.Runner) *model.Runner {
		sort.SliceStable(tier, func(i, k int) bool {
			return loadRatio(rows[tier[i].Pubkey]) < loadRatio(rows[tier[k].Pubkey])
		})
		if len(tier) == 0 {
			return nil
		}
		return tier[0]
	}
	c.runner, c.unannounced = pick(cands[0]), pick(cands[1])
	return c
}

func loadRatio(p *model.Peer) float64 {
	if p.Capacity <= 0 {
		return float64(p.Load)
	}
	return float64(p.Load) / float64(p.Capacity)
}

// hideRefused returns peers with the rows of those whose breaker refuses a
// job now marked down (copies), so that choose leaves them waiting and
// picks another registered runner.
func (r *resolver) hideRefused(peers []*model.Peer) []*model.Peer {
	out := make([]*model.Peer, len(peers))
	for i, p := range peers {
		out[i] = p
		if _, refused := r.o.Presence.Refused(p.PeerID); refused && p.State == model.PeerUp {
			row := *p
			row.State = model.PeerDown
			out[i] = &row
		}
	}
	return out
}

// breakerNotes are the names of waiting runners, each with its breaker's
// state when that is why it waits.
func (r *resolver) breakerNotes(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if state, refused := r.o.Presence.Refused(n); refused {
			out[i] = n + " (circuit breaker " + state + ")"
		}
	}
	return out
}
