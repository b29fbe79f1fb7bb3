package bridge

import (
	"sync"
	"time"
)

// pendingAcks delays the ack of a received job a little: a job that ends
// sooner is acknowledged by its result instead (the origin settles its
// message on either), which spares a sealed message each way for short
// jobs. A delayed ack that is lost to a shutdown costs nothing but a
// retransmission: the sender resends, the receiver recognises the job
// and acknowledges at once.
type pendingAcks struct {
	mu sync.Mutex
	m  map[string]*time.Timer // "<sender peer>/<ref>" → its ack; guarded by mu
}

func ackKey(sender, ref string) string { return sender + "/" + ref }

// later sends the ack of ref from sender after d unless resultFor comes
// first.
func (a *pendingAcks) later(sender, ref string, d time.Duration, send func()) {
	k := ackKey(sender, ref)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]*time.Timer{}
	}
	if _, ok := a.m[k]; ok {
		return
	}
	a.m[k] = time.AfterFunc(d, func() {
		if a.take(k) {
			send()
		}
	})
}

// take forgets k's pending ack and reports whether it was still pending.
func (a *pendingAcks) take(k string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.m[k]
	if ok {
		t.Stop()
		delete(a.m, k)
	}
	return ok
}

// resultFor cancels the pending ack of ref from sender: its result is
// on the way and acknowledges it.
func (a *pendingAcks) resultFor(sender, ref string) { a.take(ackKey(sender, ref)) }

// stop drops every pending ack (shutdown).
func (a *pendingAcks) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, t := range a.m {
		t.Stop()
		delete(a.m, k)
	}
}

// ackDelay is how long a received job's ack may wait for its result:
// AckDelay, at most a quarter of the ack timeout.
func (c *Config) ackDelay() time.Duration {
	return min(c.AckDelay, c.TimeoutAck/4)
}
