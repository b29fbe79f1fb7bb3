package store

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"
)

// BriefCache keeps the briefs of a context's jobs (JobBrief) for the
// API's job.page and ui.stats (node/control), newest first, so that paging through a context of
// 100,000 jobs does not read them all each time.
//
// The first call reads them all (a SCAN: JobBriefs) and indexes
// those the context's job index (JobIndexKey) lacks, such as jobs a
// seed client wrote straight into Redis. After that a call reads only what
// changed: the jobs created since (the index) and the jobs that moved
// since (JobChangesKey, which every status move writes), and only
// when the context's key count or its newest move changed, or BriefTTL
// passed. A full read runs
// again in the background every FullReadEvery, for what the index and the
// changes do not see (a job a seed client wrote or changed by hand, a job
// deleted outside retention); a context whose index shrank (retention) is
// read in full at once.
type BriefCache struct {
	st *Jobs
	mu sync.Mutex
	by map[uint64]*briefEntry // guarded by mu
}

// BriefTTL bounds how long job.page and ui.stats reuse a read while the
// context's key count stays; FullReadEvery how long before a full read.
const (
	BriefTTL      = 5 * time.Second
	FullReadEvery = 30 * time.Second
)

// changesSlack re-reads moves this much older than the newest one seen:
// two scripts may stamp a move with the same millisecond, or the server's
// clock step back a little.
const changesSlack = 2000

type briefEntry struct {
	mu         sync.Mutex // one read at a time per context
	stamp      string
	read       time.Time
	full       time.Time       // the last full read
	fullBusy   bool            // a full read runs in the background
	maxCreated int64           // the newest created_at among briefs
	changes    int64           // job_changes read up to here (unix ms)
	briefs     []JobBrief      // shared: callers must not change it
	known      map[string]bool // the keys of briefs
}

func NewBriefCache(st *Jobs) *BriefCache {
	return &BriefCache{st: st, by: map[uint64]*briefEntry{}}
}

// get returns the briefs of context ctxID, newest first (as job.list
// orders jobs).
func (c *BriefCache) Get(ctx context.Context, ctxID uint64) ([]JobBrief, error) {
	c.mu.Lock()
	e := c.by[ctxID]
	if e == nil {
		e = &briefEntry{}
		c.by[ctxID] = e
	}
	c.mu.Unlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	stamp := c.stamp(ctx, ctxID) // before the read: a write during it makes the next call read again
	if e.briefs != nil && stamp != "" && stamp == e.stamp && time.Since(e.read) < BriefTTL {
		return e.briefs, nil
	}
	var err error
	if e.briefs == nil {
		err = c.readFull(ctx, ctxID, e)
	} else {
		err = c.readChanges(ctx, ctxID, e)
	}
	if err != nil {
		return nil, err
	}
	e.stamp, e.read = stamp, time.Now()
	if time.Since(e.full) > FullReadEvery && !e.fullBusy {
		e.fullBusy = true
		go c.refresh(ctxID, e)
	}
	return e.briefs, nil
}

// stamp is a cheap sign that the context's jobs changed: its key count
// (ChangeStamp) and its newest move (LastChange); "" when the
// store does not answer.
func (c *BriefCache) stamp(ctx context.Context, ctxID uint64) string {
	n := c.st.ChangeStamp(ctx, ctxID)
	last, err := c.st.LastChange(ctx, ctxID)
	if n == "" || err != nil {
		return ""
	}
	return n + "/" + strconv.FormatInt(last, 10)
}

// readFull reads every brief of the context into e; e.mu is held.
func (c *BriefCache) readFull(ctx context.Context, ctxID uint64, e *briefEntry) error {
	since, err := c.st.LastChange(ctx, ctxID) // before the read: moves during it are read again after
	if err != nil {
		return err
	}
	bs, err := c.fullBriefs(ctx, ctxID)
	if err != nil {
		return err
	}
	e.install(bs, since)
	return nil
}

// fullBriefs reads every brief of the context (SCAN), sorted, and indexes
// the jobs the index lacks.
func (c *BriefCache) fullBriefs(ctx context.Context, ctxID uint64) ([]JobBrief, error) {
	bs, err := c.st.JobBriefs(ctx, ctxID)
	if err != nil {
		return nil, err
	}
	if _, n, err := c.st.IndexedSince(ctx, ctxID, 0); err == nil && int(n) < len(bs) {
		if err := c.st.IndexJobs(ctx, ctxID, bs); err != nil {
			return nil, err
		}
	}
	sortBriefs(bs)
	return bs, nil
}

// refresh makes a full read in the background and installs it.
func (c *BriefCache) refresh(ctxID uint64, e *briefEntry) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	since, err := c.st.LastChange(ctx, ctxID)
	var bs []JobBrief
	if err == nil {
		bs, err = c.fullBriefs(ctx, ctxID)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fullBusy = false
	if err != nil {
		slog.Debug("store: job briefs: full read", "context", ctxID, "err", err)
		return
	}
	e.install(bs, min(since, e.changes)) // moves after the read began are read again
	e.stamp = ""                         // the next call reads the changes since
}

// install makes bs (sorted) e's briefs, read completely with the moves up
// to changes in them; e.mu is held.
func (e *briefEntry) install(bs []JobBrief, changes int64) {
	if bs == nil {
		bs = []JobBrief{}
	}
	e.briefs, e.full, e.changes = bs, time.Now(), changes
	e.known = make(map[string]bool, len(bs))
	e.maxCreated = 0
	for i := range bs {
		e.known[bs[i].Key] = true
		e.maxCreated = max(e.maxCreated, bs[i].CreatedAt)
	}
}

// readChanges brings e up to date with the jobs created (the index) and
// moved (job_changes) since it was read; e.mu is held.
func (c *BriefCache) readChanges(ctx context.Context, ctxID uint64, e *briefEntry) error {
	created, indexed, err := c.st.IndexedSince(ctx, ctxID, e.maxCreated)
	if err != nil {
		return err
	}
	if int(indexed) < len(e.known) { // jobs went (retention): read all again
		return c.readFull(ctx, ctxID, e)
	}
	moved, newest, whole, err := c.st.ChangedSince(ctx, ctxID, e.changes-changesSlack)
	if err != nil {
		return err
	}
	if !whole { // moves since were trimmed away (JobChangesCap): read all again
		return c.readFull(ctx, ctxID, e)
	}
	reread := slices.DeleteFunc(created, func(k string) bool { return e.known[k] })
	reread = append(reread, moved...)
	if len(reread) > 0 {
		fresh, err := c.st.JobBriefsOf(ctx, ctxID, dedupe(reread))
		if err != nil {
			return err
		}
		e.merge(fresh, reread)
	}
	e.changes = max(e.changes, newest)
	return nil
}

// merge puts fresh (the briefs read again of keys; a key without one is
// gone) into e's briefs, as a new slice: callers may hold the old one.
func (e *briefEntry) merge(fresh []JobBrief, keys []string) {
	by := make(map[string]JobBrief, len(fresh))
	for _, b := range fresh {
		by[b.Key] = b
	}
	out := make([]JobBrief, 0, len(e.briefs)+len(fresh))
	var added []JobBrief
	for _, b := range fresh {
		if !e.known[b.Key] {
			added = append(added, b)
		}
	}
	sortBriefs(added)
	out = append(out, added...)
	gone := map[string]bool{}
	for _, k := range keys {
		if _, ok := by[k]; !ok && e.known[k] {
			gone[k] = true
		}
	}
	for _, b := range e.briefs {
		if nb, ok := by[b.Key]; ok {
			b = nb
		}
		if !gone[b.Key] {
			out = append(out, b)
		}
	}
	if len(added) > 0 && len(e.briefs) > 0 && briefBefore(e.briefs[0], added[len(added)-1]) {
		sortBriefs(out) // a new job older than the newest known one (a caller's created_at)
	}
	for _, b := range added {
		e.known[b.Key] = true
		e.maxCreated = max(e.maxCreated, b.CreatedAt)
	}
	for k := range gone {
		delete(e.known, k)
	}
	e.briefs = out
}

// briefBefore says a sorts before b (newer first).
func briefBefore(a, b JobBrief) bool {
	return compareBriefs(a, b) < 0
}

// dedupe returns keys without repeats, in their first order.
func dedupe(keys []string) []string {
	seen := make(map[string]bool, len(keys))
	return slices.DeleteFunc(keys, func(k string) bool { d := seen[k]; seen[k] = true; return d })
}

// sortBriefs orders newest first, as job.list does.
func sortBriefs(bs []JobBrief) { slices.SortFunc(bs, compareBriefs) }

// compareBriefs orders newest first: by created_at, then id, then caller.
func compareBriefs(a, b JobBrief) int {
	return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), cmp.Compare(b.ID, a.ID), cmp.Compare(b.CallerID, a.CallerID))
}
