package starters

import (
	"context"
	"sync"
	"time"
)

// The engine publishes its own events (a job ended, a flow finished) only
// while some trigger of the context listens for them (Listens): a context
// without such triggers pays nothing but a look at a cache.

// listenTTL is how long the cache of listened-for event names is trusted
// (a trigger added through another agent is seen after at most this).
const listenTTL = 2 * time.Second

// listenCache remembers which event names the triggers of each context
// listen for.
type listenCache struct {
	mu    sync.Mutex
	names map[uint64]map[string]bool
	at    map[uint64]time.Time
}

// Listens reports whether a trigger of context ctxID listens for name.
func (s *Triggers) Listens(ctx context.Context, ctxID uint64, name string) bool {
	c := &s.listen
	c.mu.Lock()
	names, fresh := c.names[ctxID], time.Since(c.at[ctxID]) < listenTTL
	c.mu.Unlock()
	if fresh {
		return names[name]
	}
	ts, err := s.triggers(ctx, ctxID)
	if err != nil {
		return false
	}
	names = map[string]bool{}
	for _, t := range ts {
		names[t.Flow.On.Event] = true
	}
	c.mu.Lock()
	if c.names == nil {
		c.names, c.at = map[uint64]map[string]bool{}, map[uint64]time.Time{}
	}
	c.names[ctxID], c.at[ctxID] = names, time.Now()
	c.mu.Unlock()
	return names[name]
}

// forgetListens drops the cache of ctxID (a trigger was added here).
func (s *Triggers) forgetListens(ctxID uint64) {
	c := &s.listen
	c.mu.Lock()
	delete(c.at, ctxID)
	c.mu.Unlock()
}
