package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Trust goes both ways (DESIGN §4). When the agent chooses where a job
// runs (job run --to any, a flow job with no runner, a msg_out job message
// with neither dst nor runner), the job, its script and its env go only to
// a runner registered in the job's context (a runner:<id> record whose
// pubkey names the agent) or stay here. Presence is only a hint among
// those: which of them are up, run the job's type, and how loaded they
// are. A peer that merely announces itself gets nothing.

// ErrNoRunner is why a job whose runner was left to the agent cannot go
// anywhere: no runner registered in its context runs its script type, and
// this agent does not either. Errors that wrap it say how to register one.
var ErrNoRunner = errors.New("no runner for the job")

// noRunnerError is ErrNoRunner for one context and script type.
type noRunnerError struct {
	ctxID uint64
	typ   string
}

func (e *noRunnerError) Error() string {
	return fmt.Sprintf("no runner registered in context %d runs script type %q, and this agent does not: "+
		"register the agent that should run it (hyphae runner create %d --peer <peer ID> --type %s) "+
		"or name it (--to <peer ID>)", e.ctxID, e.typ, e.ctxID, e.typ)
}

func (e *noRunnerError) Is(target error) bool { return target == ErrNoRunner }

// registryTTL is how long a context's list of runner records is used
// before it is read again. A pick is confirmed against its record before
// the job leaves (a revoked record is never used), and a list that names
// no runner for a type is read again before a job is refused, so the TTL
// only bounds how stale the set of candidates may be.
const registryTTL = time.Second

// registry caches each context's runner records: listing them scans the
// context DB, too much for every job.
type registry struct {
	mu sync.Mutex
	m  map[uint64]registered // guarded by mu
}

type registered struct {
	at      time.Time
	runners []*model.Runner
}

// of returns context ctxID's runner records, read again when older than
// registryTTL or when fresh is set.
func (r *registry) of(ctx context.Context, st *store.Store, ctxID uint64, fresh bool) ([]*model.Runner, error) {
	r.mu.Lock()
	e, ok := r.m[ctxID]
	r.mu.Unlock()
	if ok && !fresh && time.Since(e.at) < registryTTL {
		return e.runners, nil
	}
	rs, err := st.ListRunners(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.m == nil {
		r.m = map[uint64]registered{}
	}
	r.m[ctxID] = registered{at: time.Now(), runners: rs}
	r.mu.Unlock()
	return rs, nil
}

// choice is where registered runners let a job of one type go.
type choice struct {
	runner  *model.Runner // the least loaded registered runner up that runs the type; nil: none
	waiting []string      // registered runners that may run it but cannot now (down, or not announcing it)
}

// choose picks among the runners registered in a context (rs) for a job
// of type typ, using the peer table (peers) as a hint: a candidate is a
// record of another agent (not self, not local) whose script_types, when
// set, include typ, whose agent is up and announces typ; the least loaded
// wins. A record that may run typ but whose agent is down, never heard
// of, or not announcing typ now is waiting.
func choose(rs []*model.Runner, peers []*model.Peer, typ, self string) choice {
	rows := make(map[string]*model.Peer, len(peers))
	for _, p := range peers {
		rows[p.PeerID] = p
	}
	var c choice
	var cands []*model.Runner
	seen := map[string]bool{}
	for _, r := range rs {
		if r.RunsHere(self) || r.Pubkey == "" || seen[r.Pubkey] {
			continue
		}
		if len(r.ScriptTypes) > 0 && !slices.Contains(r.ScriptTypes, typ) {
			continue
		}
		seen[r.Pubkey] = true
		row := rows[r.Pubkey]
		switch {
		case row != nil && row.State == model.PeerUp && slices.Contains(row.ScriptTypes, typ):
			cands = append(cands, r)
		case row == nil || len(r.ScriptTypes) > 0 || slices.Contains(row.ScriptTypes, typ):
			c.waiting = append(c.waiting, r.Pubkey)
		}
	}
	sort.SliceStable(cands, func(i, k int) bool {
		return loadRatio(rows[cands[i].Pubkey]) < loadRatio(rows[cands[k].Pubkey])
	})
	if len(cands) > 0 {
		c.runner = cands[0]
	}
	return c
}

func loadRatio(p *model.Peer) float64 {
	if p.Capacity <= 0 {
		return float64(p.Load)
	}
	return float64(p.Load) / float64(p.Capacity)
}
