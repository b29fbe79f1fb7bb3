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
//
// An ack may also say that the job runs (started): the runner's start
// hook turns the job's pending ack into one that says so, or, when the
// ack is already gone, makes a new one. Such an ack rides on nothing: it
// goes out on its own after the delay, unless the job's result goes
// first. So a job that ends within the delay costs no message more, and
// a longer one one ack, which tells the origin the job is running there.
type pendingAcks struct {
	mu sync.Mutex
	m  map[string]map[string]*pendingAck // peer → ref → its ack; guarded by mu
}

type pendingAck struct {
	ref     string
	timer   *time.Timer
	send    func() // sends it on its own
	started bool   // send says the job runs; it does not ride on messages
}

// maxPiggyback bounds the acks one message carries.
const maxPiggyback = 64

// later sends the ack of ref to peer after d, on its own, unless it rode
// on another message or resultFor came first.
func (a *pendingAcks) later(peer, ref string, d time.Duration, send func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.m[peer][ref]; ok {
		return
	}
	a.add(peer, ref, d, &pendingAck{ref: ref, send: send})
}

// started makes the pending ack of ref from peer one that says the job
// runs, sent by send; when none is pending (it went out already, or the
// job's ack was never delayed), it adds one, sent after d unless the
// job's result goes first (resultFor).
func (a *pendingAcks) started(peer, ref string, d time.Duration, send func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.m[peer][ref]; ok {
		p.send, p.started = send, true
		return
	}
	a.add(peer, ref, d, &pendingAck{ref: ref, send: send, started: true})
}

// add makes p pending for peer, sent on its own after d; a.mu is held.
func (a *pendingAcks) add(peer, ref string, d time.Duration, p *pendingAck) {
	if a.m == nil {
		a.m = map[string]map[string]*pendingAck{}
	}
	if a.m[peer] == nil {
		a.m[peer] = map[string]*pendingAck{}
	}
	p.timer = time.AfterFunc(d, func() {
		if p := a.take(peer, ref); p != nil {
			p.send()
		}
	})
	a.m[peer][ref] = p
}

// take forgets a pending ack and returns it, or nil when it was not
// pending.
func (a *pendingAcks) take(peer, ref string) *pendingAck {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.m[peer][ref]
	if !ok {
		return nil
	}
	a.drop(peer, p)
	return p
}

// drop stops p and removes it; a.mu is held.
func (a *pendingAcks) drop(peer string, p *pendingAck) {
	p.timer.Stop()
	delete(a.m[peer], p.ref)
	if len(a.m[peer]) == 0 {
		delete(a.m, peer)
	}
}

// resultFor cancels the pending ack of ref from peer: its result is on
// the way and acknowledges it.
func (a *pendingAcks) resultFor(peer, ref string) { a.take(peer, ref) }

// piggyback takes up to maxPiggyback pending acks for peer, to ride on a
// message being sealed to it (not those that say a job runs). If that
// message is not sent, the caller sends each on its own (pendingAck.send).
func (a *pendingAcks) piggyback(peer string) []*pendingAck {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*pendingAck
	for _, p := range a.m[peer] {
		if p.started {
			continue
		}
		a.drop(peer, p)
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

// flush takes the pending acks that say a job runs and one other per
// peer, and returns their sends: the peer's other acks ride on it. For a
// graceful shutdown, which would otherwise drop them (and cost each
// sender a retransmission).
func (a *pendingAcks) flush() []func() {
	a.mu.Lock()
	defer a.mu.Unlock()
	var sends []func()
	for peer, pending := range a.m {
		carrier := false // a plain ack taken: the peer's other plain ones ride on it
		for _, p := range pending {
			if !p.started && carrier {
				continue
			}
			carrier = carrier || !p.started
			a.drop(peer, p)
			sends = append(sends, p.send)
		}
	}
	return sends
}

// stop drops every pending ack (shutdown).
func (a *pendingAcks) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for peer, pending := range a.m {
		for _, p := range pending {
			a.drop(peer, p)
		}
	}
}

// ackDelay is how long an ack may wait for a result or a message to ride
// on: AckDelay, at most a quarter of the ack timeout; with Plain.Acks
// none (negative: at once).
func (c *Config) ackDelay() time.Duration {
	if c.Plain.Acks {
		return -1
	}
	return min(c.AckDelay, c.TimeoutAck/4)
}
