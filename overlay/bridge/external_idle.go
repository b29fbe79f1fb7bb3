package bridge

import (
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

// wait is how long the loop may sleep after a pass over ids at now:
// externalEvery while a context may have jobs watched, else until the
// first found empty is due for its safety look (a write kicks it first).
func (e *externalIdle) wait(ids []uint64, now time.Time) time.Duration {
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
