package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/route"
)

// Trust goes both ways (docs/design.md, "Trust"): a job the agent routes
// goes only to a runner registered in its context, or stays here. The
// rule is context/route's (Bridge.route); this file keeps the registry of
// runner records it reads.

// ErrNoRunner is why a job whose runner was left to the agent cannot go
// anywhere (route.ErrNoRunner): no runner registered in its context runs
// its script type, and this agent does not either. Errors that wrap it
// say how to register one.
var ErrNoRunner = route.ErrNoRunner

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
func (r *registry) of(ctx context.Context, st RegistryStore, ctxID uint64, fresh bool) ([]*model.Runner, error) {
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
