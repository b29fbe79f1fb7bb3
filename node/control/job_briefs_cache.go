package control

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// briefCache keeps the briefs of a context's jobs (store.JobBriefs) for
// job.page and ui.stats for up to BriefTTL while the context's key count
// (store.ChangeStamp) stays: paging through a context of 100,000 jobs
// reads them once, callers that come together share one read, and a new
// job makes the next call read again. What a cached brief may have stale
// is a status (counts, the status filter), for at most BriefTTL: the
// jobs of a page are loaded whole, fresh, and their order (created_at)
// never changes.
type briefCache struct {
	st *store.Store
	mu sync.Mutex
	by map[uint64]*briefEntry // guarded by mu
}

// BriefTTL bounds how long job.page and ui.stats reuse a read.
const BriefTTL = 5 * time.Second

type briefEntry struct {
	mu     sync.Mutex // one read at a time per context
	stamp  string
	read   time.Time
	briefs []store.JobBrief // shared: callers must not change it
}

func newBriefCache(st *store.Store) *briefCache {
	return &briefCache{st: st, by: map[uint64]*briefEntry{}}
}

// get returns the briefs of context ctxID, newest first (as job.list
// orders jobs), read now or within BriefTTL while the key count stood.
func (c *briefCache) get(ctx context.Context, ctxID uint64) ([]store.JobBrief, error) {
	c.mu.Lock()
	e := c.by[ctxID]
	if e == nil {
		e = &briefEntry{}
		c.by[ctxID] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	stamp := c.st.ChangeStamp(ctx, ctxID) // before the read: a write during it makes the next call read again
	if stamp != "" && stamp == e.stamp && time.Since(e.read) < BriefTTL {
		return e.briefs, nil
	}
	bs, err := c.st.JobBriefs(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	sortBriefs(bs)
	e.stamp, e.briefs, e.read = stamp, bs, time.Now()
	return bs, nil
}
