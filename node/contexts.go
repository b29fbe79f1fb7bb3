package node

import (
	"context"
	"sync"
	"time"
)

// contextCacheFor is how long a listing of the contexts is reused. The
// runner, the bridge and the scheduler each poll the list; one scan of DB 0
// serves them all, and creating a context here forgets it at once.
const contextCacheFor = time.Second

// contextCache holds the last listing of the context ids.
type contextCache struct {
	mu  sync.Mutex
	ids []uint64  // guarded by mu
	at  time.Time // guarded by mu; zero = stale
}

func (c *contextCache) forget() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}

// contextIDs lists the contexts of this agent (DB 0 registry), sorted.
func (n *Node) contextIDs(ctx context.Context) ([]uint64, error) {
	ttl := n.cacheFor(ctx) // contexts_watch.go
	c := &n.ctxCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < ttl {
		return append([]uint64(nil), c.ids...), nil
	}
	ids, err := n.store.Registry.ContextIDs(ctx)
	if err != nil {
		return nil, err
	}
	c.ids, c.at = ids, time.Now()
	return append([]uint64(nil), ids...), nil
}
