package bridge

import (
	"sync"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// outboxDue is when the outbox loop next reads each context's outbox and
// awaiting_result: at their earliest entry's time, and writeGrace after
// one was written (a KeyWatch callback, from the subscription's reader).
// The grace leaves a new entry to the send that wrote it, as the loop's
// tick always did: a pass at the moment of the write would race that
// send and send it twice.
type outboxDue struct {
	mu    sync.Mutex
	send  map[uint64]time.Time // outbox: next read; guarded by mu
	await map[uint64]time.Time // awaiting_result: next read; guarded by mu
	all   bool                 // writes may have been missed: read every context; guarded by mu
	kick  chan struct{}        // a write: the loop sets its timer again
}

// writeGrace is how long after a write its context is read.
const writeGrace = 100 * time.Millisecond

func newOutboxDue() *outboxDue {
	return &outboxDue{send: map[uint64]time.Time{}, await: map[uint64]time.Time{}, kick: make(chan struct{}, 1)}
}

// written is the KeyWatch callback of a write of key in DB db.
func (d *outboxDue) written(key string) func(db uint64) {
	return func(db uint64) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if db == store.AnyDB {
			d.all = true
			return
		}
		m := d.await
		if key == store.OutboxKey {
			m = d.send
		}
		soon := time.Now().Add(writeGrace)
		if t, ok := m[db]; !ok || t == inPass || soon.Before(t) {
			m[db] = soon
		}
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
}

// Between passes the loop naps outboxTick while a peer is watched for its
// return (resend.go) or an entry is due sooner, else up to outboxIdleTick:
// an idle bridge's loop wakes once a second, not five times.
const (
	outboxTick     = 200 * time.Millisecond
	outboxIdleTick = time.Second
)

// nap is how long the loop may sleep at now.
func (d *outboxDue) nap(now time.Time, watching bool) time.Duration {
	if watching {
		return outboxTick
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.all {
		return outboxTick
	}
	n := outboxIdleTick
	for _, m := range []map[uint64]time.Time{d.send, d.await} {
		for _, t := range m {
			if t != inPass {
				n = min(n, max(t.Sub(now), outboxTick))
			}
		}
	}
	return n
}

// watching reports whether any peer is watched for its return.
func (a *awayPeers) watching() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.m) > 0
}

// lookAll has the next take return every context.
func (d *outboxDue) lookAll() {
	d.mu.Lock()
	d.all = true
	d.mu.Unlock()
}

// take returns the contexts of ids whose outbox, and whose awaiting_result,
// is due at now (a context not read yet is), marking them inPass.
func (d *outboxDue) take(ids []uint64, now time.Time) (send, await []uint64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	all := d.all
	d.all = false
	for _, id := range ids {
		if t, ok := d.send[id]; all || !ok || !now.Before(t) {
			send = append(send, id)
			d.send[id] = inPass
		}
		if t, ok := d.await[id]; all || !ok || !now.Before(t) {
			await = append(await, id)
			d.await[id] = inPass
		}
	}
	return send, await
}

// inPass marks a context being read; a write meanwhile replaces it.
var inPass = time.Unix(1<<40, 0)

// later sets when context id's outbox (or awaiting_result: m) is next
// read, or the sooner time a write meanwhile has set.
func (d *outboxDue) later(m map[uint64]time.Time, id uint64, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t, ok := m[id]; ok && t != inPass && t.Before(at) {
		return
	}
	m[id] = at
}
