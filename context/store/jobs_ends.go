package store

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// EndWatch waits for the end of a job that this process ends itself, such
// as a job sent to another agent, which only this agent's bridge ends when
// its result (or its failure) comes: CompleteJob hands the ended job to the
// watch in memory, read in the completion's own round trip, so the waiter
// costs no Redis round trip and no connection of its own. The reply list is
// still pushed, for everyone else who waits. A job ended some other way (a
// plain Redis client) is still seen, by a look at the job every waitStep.
type EndWatch struct {
	s     *core
	ref   jobRef
	ended chan model.Hash // buffered: the completion never blocks
}

type jobRef struct {
	ctx uint64
	key string
}

// endWatches are the open EndWatches of a store, by job.
type endWatches struct {
	mu sync.Mutex
	m  map[jobRef]*EndWatch // guarded by mu
}

// WatchEnd starts watching job key of context ctxID; call it before the job
// can end (before its message is sent), and Close the watch when done.
func (s *Jobs) WatchEnd(ctxID uint64, key string) *EndWatch {
	w := &EndWatch{s: s.core, ref: jobRef{ctxID, key}, ended: make(chan model.Hash, 1)}
	s.ends.mu.Lock()
	defer s.ends.mu.Unlock()
	if s.ends.m == nil {
		s.ends.m = map[jobRef]*EndWatch{}
	}
	s.ends.m[w.ref] = w
	return w
}

// Close stops the watch; safe to call twice.
func (w *EndWatch) Close() {
	w.s.ends.mu.Lock()
	defer w.s.ends.mu.Unlock()
	if w.s.ends.m[w.ref] == w {
		delete(w.s.ends.m, w.ref)
	}
}

// Wait blocks until the job ends and returns it, or until ctx is done (nil
// and ctx's error).
func (w *EndWatch) Wait(ctx context.Context) (*model.RunnerJob, error) {
	db, err := w.s.db(w.ref.ctx)
	if err != nil {
		return nil, fmt.Errorf("store.EndWatch: %w", err)
	}
	t := time.NewTicker(waitStep)
	defer t.Stop()
	for {
		var h model.Hash
		select {
		case h = <-w.ended:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
			if h, err = endedJob(jobIfEnded.Run(ctx, db, []string{w.ref.key})); err != nil {
				return nil, fmt.Errorf("store.EndWatch: %w", err)
			}
		}
		if h != nil {
			return decodeJob(w.ref.ctx)(w.ref.key, h)
		}
	}
}

// watched reports whether someone watches the job (CompleteJob then reads
// the ended job back for them).
func (e *endWatches) watched(ctxID uint64, key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.m[jobRef{ctxID, key}] != nil
}

// ended hands the ended job h to its watch, if it still has one.
func (e *endWatches) ended(ctxID uint64, key string, h model.Hash) {
	e.mu.Lock()
	w := e.m[jobRef{ctxID, key}]
	e.mu.Unlock()
	if w != nil {
		select {
		case w.ended <- h:
		default: // ended twice: the first end stands
		}
	}
}
