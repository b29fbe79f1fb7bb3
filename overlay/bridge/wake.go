package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// An idle bridge sends Redis nothing: one pub/sub connection carries the
// pushes onto msg_out and remote_done and the adds to the outbox,
// awaiting_result and external_jobs of every DB (store.KeyWatch). The per-context list
// loops take their entries with a non-blocking LMOVE when woken, the
// outbox loop looks at a context's outbox when it is written or when its
// earliest entry falls due; each also looks every wakeSafety, in case a
// wake was lost. When the server publishes no keyspace notifications
// (CONFIG refused) the list loops block in BLMOVE a second at a time and
// the outbox loop looks at every outbox on each tick, as before.

// wakeSafety is how long a woken loop's wait lasts at most. Wakes are
// lost only while the connection is down or the server has lost its
// notifications, and the KeyWatch wakes every loop after either; this
// pass is for what nothing foresaw.
const wakeSafety = 5 * time.Minute

// bridgeWake is the bridge's watch of its keys, made on first use.
type bridgeWake struct {
	once sync.Once
	w    *store.KeyWatch // nil: block and poll
}

// keyWatcher is what the store offers for it (store.Bus does).
type keyWatcher interface {
	WatchKeys(ctx context.Context, classes string, keys, events []string) (*store.KeyWatch, error)
	MoveNext(ctx context.Context, ctxID uint64, list, processing string) (string, error)
	Earliest(ctx context.Context, ctxID uint64, key string) (time.Time, bool, error)
}

// watch returns the bridge's KeyWatch, nil when its loops must poll.
func (b *Bridge) watch() *store.KeyWatch {
	b.wake.once.Do(func() {
		kw, ok := b.st.Bus.(keyWatcher)
		if !ok {
			return
		}
		w, err := kw.WatchKeys(b.ctx, "lz", []string{store.MsgOutKey, store.RemoteDoneKey, store.OutboxKey,
			store.AwaitingKey, store.ExternalJobsKey}, append(append([]string{}, store.ListPushEvents...), store.SortedSetAddEvents...))
		if err != nil {
			if b.ctx.Err() == nil {
				b.log.Warn("bridge: no keyspace notifications; polling msg_out, remote_done and the outboxes", "err", err)
			}
			return
		}
		if !b.spawn(func() { <-b.ctx.Done(); w.Close() }) {
			w.Close()
			return
		}
		b.wake.w = w
	})
	return b.wake.w
}

// taker returns how a loop of context ctxID takes list's next entry into
// proc: woken by the watch (waiting up to wakeSafety; "" when nothing
// came), else by a BLMOVE of up to a second. Call it before the loop's
// first look, so a push after it wakes the loop.
func (b *Bridge) taker(ctxID uint64, list, proc string) func(ctx context.Context) (string, error) {
	w := b.watch()
	if w == nil {
		return func(ctx context.Context) (string, error) {
			return b.st.Bus.TakeMsgOut(ctx, ctxID, list, proc, time.Second)
		}
	}
	return w.Taker(b.st.Bus.(keyWatcher), ctxID, list, proc, wakeSafety)
}
