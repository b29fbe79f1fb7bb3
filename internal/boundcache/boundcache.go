// Package boundcache is a concurrency-safe map of bounded size, for
// caching values that are pure functions of their keys (keys derived from
// peer IDs, text forms of them): when it is full, a put evicts an
// arbitrary entry, which is cheap and good enough there.
package boundcache

import "sync"

// Cache holds at most max entries.
type Cache[K comparable, V any] struct {
	mu  sync.RWMutex
	m   map[K]V // guarded by mu
	max int
}

// New returns an empty cache of at most max entries.
func New[K comparable, V any](max int) *Cache[K, V] {
	return &Cache[K, V]{m: make(map[K]V, max), max: max}
}

// Get returns k's value, and whether it is cached.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[k]
	return v, ok
}

// Put caches v for k, evicting an arbitrary entry when the cache is full.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; !ok && len(c.m) >= c.max {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = v
}

// Len is how many entries the cache holds.
func (c *Cache[K, V]) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}
