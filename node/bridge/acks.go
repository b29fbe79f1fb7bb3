package bridge

import (
	"sync"
	"time"
)

// pendingAcks delays acks a little, so that most of them cost no sealed
// message of their own:
//
//   - the ack of a received job waits for the job's result, which
//     acknowledges it too (resultFor; the origin settles its message on
//     either);
//   - any delayed ack rides on the next message sealed to its peer (the
//     payload's acks list, see piggyback), so a result's ack usually
//     travels with the origin's next job to that agent.
//
// What is still pending after the delay goes out on its own. An ack that
// is lost (to a shutdown, or with the message that carried it) costs a
// retransmission only: the sender resends, and the receiver, recognising
// the message, acknowledges at once.
type pendingAcks struct {
	mu sync.Mutex
	m  map[string]*pendingAck // "<peer>/<ref>" → its ack; guarded by mu
}

type pendingAck struct {
	peer, ref string
	timer     *time.Timer
	send      func() // sends it on its own
}

// maxPiggyback bounds the acks one message carries.
const maxPiggyback = 64

func ackKey(peer, ref string) string { return peer + "/" + ref }

// later sends the ack of ref to peer after d, on its own, unless it rode
// on another message or resultFor came first.
func (a *pendingAcks) later(peer, ref string, d time.Duration, send func()) {
	k := ackKey(peer, ref)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[string]*pendingAck{}
	}
	if _, ok := a.m[k]; ok {
		return
	}
	p := &pendingAck{peer: peer, ref: ref, send: send}
	p.timer = time.AfterFunc(d, func() {
		if a.take(k) {
			send()
		}
	})
	a.m[k] = p
}

// take forgets k's pending ack and reports whether it was still pending.
func (a *pendingAcks) take(k string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.m[k]
	if ok {
		p.timer.Stop()
		delete(a.m, k)
	}
	return ok
}

// resultFor cancels the pending ack of ref from peer: its result is on
// the way and acknowledges it.
func (a *pendingAcks) resultFor(peer, ref string) { a.take(ackKey(peer, ref)) }

// piggyback takes up to maxPiggyback pending acks for peer, to ride on a
// message being sealed to it. If that message is not sent, the caller
// hands them back with sendNow.
func (a *pendingAcks) piggyback(peer string) []*pendingAck {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*pendingAck
	for k, p := range a.m {
		if p.peer != peer {
			continue
		}
		p.timer.Stop()
		delete(a.m, k)
		if out = append(out, p); len(out) == maxPiggyback {
			break
		}
	}
	return out
}

// refs lists the refs of acks.
func refs(acks []*pendingAck) []string {
	out := make([]string, len(acks))
	for i, p := range acks {
		out[i] = p.ref
	}
	return out
}

// sendNow sends acks on their own at once: the message they were to ride
// on did not go out.
func sendNow(acks []*pendingAck) {
	for _, p := range acks {
		go p.send()
	}
}

// flush takes every pending ack and returns, for each peer, the send of
// one of them: the others ride on it. For a graceful shutdown, which
// would otherwise drop them (and cost each sender a retransmission).
func (a *pendingAcks) flush() []func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	seen := map[string]bool{}
	var sends []func()
	for k, p := range a.m {
		if seen[p.peer] {
			continue
		}
		seen[p.peer] = true
		p.timer.Stop()
		delete(a.m, k)
		sends = append(sends, p.send)
	}
	return sends
}

// stop drops every pending ack (shutdown).
func (a *pendingAcks) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, p := range a.m {
		p.timer.Stop()
		delete(a.m, k)
	}
}

// ackDelay is how long an ack may wait for a result or a message to ride
// on: AckDelay, at most a quarter of the ack timeout.
func (c *Config) ackDelay() time.Duration {
	return min(c.AckDelay, c.TimeoutAck/4)
}
