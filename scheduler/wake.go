package scheduler

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// An idle scheduler sends Redis nothing: the loops of every context wait
// on one pub/sub connection carrying the pushes onto jobs_done, events
// and queue:wait_for of every DB (store.KeyWatch), take what is there
// with a non-blocking LMOVE when woken, and look again every idleSafety
// (5 min) in case a wake was lost. When the server publishes no keyspace
// notifications (CONFIG refused), each loop blocks in BLMOVE for
// Config.Block at a time, as before.

// idleSafety is how long a woken loop's wait lasts at most. Wakes are
// lost only while the connection is down or the server has lost its
// notifications, and the KeyWatch wakes every loop after either; this
// pass is for what nothing foresaw.
const idleSafety = 5 * time.Minute

// loopWake is the scheduler's watch of its lists, made on first use.
type loopWake struct {
	once sync.Once
	w    *store.KeyWatch // nil: the loops block in BLMOVE
}

// keyWatcher is what the store offers for it (store.Flows does).
type keyWatcher interface {
	WatchKeys(ctx context.Context, classes string, keys, events []string) (*store.KeyWatch, error)
	MoveNext(ctx context.Context, ctxID uint64, list, processing string) (string, error)
}

// watch returns the scheduler's KeyWatch, nil when the loops must block.
func (s *Scheduler) watch() *store.KeyWatch {
	s.wake.once.Do(func() {
		kw, ok := s.st.Flows.(keyWatcher)
		if !ok {
			return
		}
		w, err := kw.WatchKeys(s.ctx, "l", []string{store.JobsDoneKey, store.EventsKey, store.WaitForQueueKey},
			store.ListPushEvents)
		if err != nil {
			if s.ctx.Err() == nil {
				s.log.Warn("no keyspace notifications; the loops block on their lists", "every", s.cfg.Block, "err", err)
			}
			return
		}
		if !s.spawn(func(ctx context.Context) { <-ctx.Done(); w.Close() }) {
			w.Close()
			return
		}
		s.wake.w = w
	})
	return s.wake.w
}

// taker returns how a loop of context ctxID takes list's next entry into
// proc: woken by the watch (waiting up to idleSafety; "" when nothing
// came), else by block, a blocking move. Call it before the loop's first
// look, so a push after it wakes the loop.
func (s *Scheduler) taker(ctxID uint64, list, proc string,
	block func(ctx context.Context) (string, error)) func(ctx context.Context) (string, error) {
	w := s.watch()
	if w == nil {
		return block
	}
	return w.Taker(s.st.Flows.(keyWatcher), ctxID, list, proc, idleSafety)
}
