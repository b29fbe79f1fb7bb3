package bridge

import (
	"slices"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// externalIdle spares an idle agent the external loop's reads: a context
// whose external_jobs was found empty is not read again until the set is
// written (a KeyWatch callback) or wakeSafety has passed. Without
// notifications every context is read on each pass, as before.
type externalIdle struct {
	on    bool
	mu    sync.Mutex
	empty map[uint64]time.Time // context → when its set was found empty; guarded by mu
	gen   map[uint64]uint64    // context → writes seen; guarded by mu
	all   uint64               // possible losses seen; guarded by mu
	kick  chan struct{}        // a write: the loop looks again now
}

func newExternalIdle(w *store.KeyWatch) *externalIdle {
	e := &externalIdle{on: w != nil, empty: map[uint64]time.Time{}, gen: map[uint64]uint64{},
		kick: make(chan struct{}, 1)}
	if w != nil {
		w.OnWrite(store.ExternalJobsKey, e.written)
	}
	return e
}

// written is the KeyWatch callback of a write of external_jobs in DB db.
func (e *externalIdle) written(db uint64) {
	e.mu.Lock()
	if db == store.AnyDB {
		e.all++
		clear(e.empty)
	} else {
		e.gen[db]++
		delete(e.empty, db)
	}
	e.mu.Unlock()
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// contexts returns the contexts a pass looks at: listed, the bridge's,
// and those written since the start and not among them — one created
// since the bridge last listed its contexts, where a received job was
// watched (jobs.go, hasContext), is listed later with no write to wake
// the loop then.
func (e *externalIdle) contexts(listed []uint64) []uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.gen) == 0 {
		return listed
	}
	ids, in := slices.Clone(listed), make(map[uint64]bool, len(listed))
	for _, id := range listed {
		in[id] = true
	}
	for db := range e.gen {
		if !in[db] {
			ids = append(ids, db)
		}
	}
	return ids
}

// wait is how long the loop may sleep after a pass over ids at now, when
// the bridge has listed its contexts (listed): externalEvery while a
// context may have jobs watched, else until the first found empty is due
// for its safety look (a write kicks it first). Before the bridge has
// listed them (at start the loop's first pass may come first) it is
// externalEvery: a context listed then has not been looked at, and a job
// of it its worker ended while the agent was down wakes nothing.
func (e *externalIdle) wait(ids []uint64, listed bool, now time.Time) time.Duration {
	if !listed {
		return externalEvery
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	d := wakeSafety
	for _, id := range ids {
		at, known := e.empty[id]
		if !e.on || !known {
			return externalEvery
		}
		d = min(d, max(at.Add(wakeSafety).Sub(now), externalEvery))
	}
	return d
}

// look reports whether context id's set is to be read at now and, when it
// is, the writes seen so far, for found.
func (e *externalIdle) look(id uint64, now time.Time) (bool, [2]uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	at, known := e.empty[id]
	return !known || now.Sub(at) >= wakeSafety, [2]uint64{e.gen[id], e.all}
}

// found notes that context id's set was found empty by a read that began
// at at, when seen were the writes (look), unless it was written since.
func (e *externalIdle) found(id uint64, at time.Time, seen [2]uint64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.on && seen == [2]uint64{e.gen[id], e.all} {
		e.empty[id] = at
	}
}
