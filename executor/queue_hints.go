package executor

import (
	"sync"
	"time"
)

// A context's loop remembers, between claims, which of its queues a claim
// found empty, so the next claim tries only those that may hold a job: a
// busy queue of one type does not make every claim pop (and count) the
// empty queues of the others. What it knows is only ever a hint, bounded
// both ways: a push to a queue (its keyspace notification, watchEvents)
// forgets that it was empty, and so does hintFor passing (a claim that
// finds it empty again renews the mark), so a job that reached a queue by
// a move no notification reports (a reclaim, a gate's put-back) waits at
// most about that long. A claim taken after a push it has not
// yet heard of cannot mark that queue empty: the mark holds the count of
// pushes heard before the claim was sent, and is void once another one
// has come (gen). Without notifications there are no hints: every claim
// tries every queue, as pollEvery's loop did before.

// hintFor is how long a queue found empty is left out of claims.
const hintFor = 5 * time.Second

// queueHints is one context's. The zero value knows nothing.
type queueHints struct {
	mu    sync.Mutex
	gen   map[string]uint64    // guarded by mu; pushes heard, by type
	empty map[string]emptyMark // guarded by mu; found empty, by type
}

// emptyMark is a claim's finding that a queue was empty.
type emptyMark struct {
	gen uint64    // pushes heard before the claim was sent
	at  time.Time // when it was sent
}

// pushed notes a push to queue:<t>.
func (h *queueHints) pushed(t string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen == nil {
		h.gen = map[string]uint64{}
	}
	h.gen[t]++
}

// forget drops every mark (a claim failed).
func (h *queueHints) forget() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.empty)
}

// worth returns the types of order that may hold a job, in order, and
// the push counts heard so far (for found); all of order when every one
// was found empty, so a claim (which also settles re-checks due) still
// looks at each.
func (h *queueHints) worth(order []string, now time.Time) ([]string, map[string]uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	gens := make(map[string]uint64, len(order))
	out := make([]string, 0, len(order))
	for _, t := range order {
		gens[t] = h.gen[t]
		m, ok := h.empty[t]
		if ok && m.gen == h.gen[t] && now.Sub(m.at) < hintFor {
			continue
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return order, gens
	}
	return out, gens
}

// found records what a claim sent at sent over tried (with push counts
// gens) saw: the queues before took (its type; "" when it took none)
// were empty, and all of them, took's too, when none was left after it.
func (h *queueHints) found(tried []string, gens map[string]uint64, sent time.Time, took string, left int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.empty == nil {
		h.empty = map[string]emptyMark{}
	}
	for _, t := range tried {
		if t == took && left > 0 {
			break
		}
		if h.gen[t] == gens[t] {
			h.empty[t] = emptyMark{gen: gens[t], at: sent}
		}
	}
}
