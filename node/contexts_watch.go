package node

import (
	"context"
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// contextCacheWatched is how long a listing is reused while the writes of
// DB 0's context hashes are watched (keyspace notifications): any such
// write forgets it at once, so this is only a safety pass. An idle agent
// then scans DB 0 once a minute, not every second.
const contextCacheWatched = time.Minute

// contextWatch watches DB 0's context hashes for the cache, from the
// first listing on; it ends when the store closes.
type contextWatch struct {
	once sync.Once
	on   bool // watching; set once
}

// cacheFor is how long a listing may be reused: contextCacheWatched once
// the watch runs, contextCacheFor when the server publishes no
// notifications.
func (n *Node) cacheFor(ctx context.Context) time.Duration {
	w := &n.ctxWatch
	w.once.Do(func() {
		kw, err := n.store.Registry.WatchKeys(context.WithoutCancel(ctx), "h", []string{"context:*"}, nil)
		if err != nil {
			return // polled, as before
		}
		kw.OnWrite("context:*", func(db uint64) {
			if db == 0 || db == store.AnyDB {
				n.ctxCache.forget()
			}
		})
		w.on = true
	})
	if w.on {
		return contextCacheWatched
	}
	return contextCacheFor
}
