package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/overlay"
)

// fakeNet connects fakeTransports in memory, so the bridge's protocol runs
// without libp2p. A frame one transport sends to another is judged by the
// recipient's inbox validator on the recipient's reader goroutine and, when
// accepted, put on its Inbox with what the validator returned — as the
// overlay does for a frame on a direct stream. A rule may drop, duplicate
// or hold frames; held frames are delivered by release, when and in the
// order the test chooses (delay, reorder). inject delivers crafted bytes
// as if a given peer had sent them (the overlay's authenticated author).
type fakeNet struct {
	mu   sync.Mutex
	ends map[peer.ID]*fakeTransport // attached transports; guarded by mu
	rule func(fakeFrame) frameFate  // guarded by mu; nil delivers everything
	held []fakeFrame                // guarded by mu
	sent []fakeFrame                // every frame sent, in order; guarded by mu

	bridges []*Bridge // bridges on the network, for stopBridges; guarded by mu
}

// fakeFrame is one frame on the fake network; env is its envelope header,
// parsed (nil when the bytes are no envelope).
type fakeFrame struct {
	from, to peer.ID
	data     []byte
	env      *envelope.Envelope
}

// is reports whether f carries an envelope of type typ.
func (f fakeFrame) is(typ envelope.Type) bool { return f.env != nil && f.env.Type == typ }

// frameFate is what a rule does with a frame.
type frameFate int

const (
	frameDeliver   frameFate = iota // to the recipient's validator
	frameDrop                       // lost
	frameDuplicate                  // delivered twice, the same bytes
	frameHold                       // kept until release
)

func newFakeNet() *fakeNet { return &fakeNet{ends: map[peer.ID]*fakeTransport{}} }

// attach makes a transport for self on n; close ends its reader.
func (n *fakeNet) attach(self peer.ID) *fakeTransport {
	ctx, cancel := context.WithCancel(context.Background())
	t := &fakeTransport{net: n, self: self, in: make(chan overlay.Received, 1024),
		queue: make(chan fakeFrame, 4096), ctx: ctx, cancel: cancel, done: make(chan struct{}),
		verdicts: map[overlay.ValidationResult]int{}}
	n.mu.Lock()
	n.ends[self] = t
	n.mu.Unlock()
	go t.read()
	return t
}

// setRule installs rule for every frame sent from now on (nil: deliver).
func (n *fakeNet) setRule(rule func(fakeFrame) frameFate) {
	n.mu.Lock()
	n.rule = rule
	n.mu.Unlock()
}

// send carries data from one transport to another under the rule.
func (n *fakeNet) send(from, to peer.ID, data []byte) error {
	f := fakeFrame{from: from, to: to, data: append([]byte(nil), data...)}
	f.env, _ = envelope.Unmarshal(f.data, 0)
	n.mu.Lock()
	n.sent = append(n.sent, f)
	dst := n.ends[to]
	fate := frameDeliver
	if n.rule != nil {
		fate = n.rule(f)
	}
	if fate == frameHold {
		n.held = append(n.held, f)
	}
	n.mu.Unlock()
	if dst == nil {
		return errors.New("fake transport: no route to " + to.String())
	}
	switch fate {
	case frameDeliver:
		dst.enqueue(f)
	case frameDuplicate:
		dst.enqueue(f)
		dst.enqueue(f)
	}
	return nil
}

// inject delivers data to to as if from had sent it, bypassing the rule.
func (n *fakeNet) inject(from, to peer.ID, data []byte) {
	f := fakeFrame{from: from, to: to, data: data}
	f.env, _ = envelope.Unmarshal(data, 0)
	n.mu.Lock()
	dst := n.ends[to]
	n.mu.Unlock()
	if dst != nil {
		dst.enqueue(f)
	}
}

// release delivers the held frames that match (nil: all), in the order
// they were held, and returns how many it delivered; releasing some before
// others reorders them.
func (n *fakeNet) release(match func(fakeFrame) bool) int {
	n.mu.Lock()
	var out, keep []fakeFrame
	for _, f := range n.held {
		if match == nil || match(f) {
			out = append(out, f)
		} else {
			keep = append(keep, f)
		}
	}
	n.held = keep
	n.mu.Unlock()
	for _, f := range out {
		n.inject(f.from, f.to, f.data)
	}
	return len(out)
}

// count is how many frames sent so far match.
func (n *fakeNet) count(match func(fakeFrame) bool) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, f := range n.sent {
		if match(f) {
			c++
		}
	}
	return c
}

// running notes a bridge on the network, for stopBridges.
func (n *fakeNet) running(b *Bridge) {
	n.mu.Lock()
	n.bridges = append(n.bridges, b)
	n.mu.Unlock()
}

// stopBridges shuts every bridge on the network down at once (each may
// wait out a blocking Redis read), before any of their Redis servers
// stops; the first side's cleanup to run does it, the others find them
// stopped (Shutdown is idempotent).
func (n *fakeNet) stopBridges(t *testing.T) {
	n.mu.Lock()
	bs := n.bridges
	n.bridges = nil
	n.mu.Unlock()
	var wg sync.WaitGroup
	for _, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := b.Shutdown(ctx); err != nil {
				t.Errorf("bridge shutdown: %v", err)
			}
		}()
	}
	wg.Wait()
}

// heldCount is how many frames are held.
func (n *fakeNet) heldCount() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.held)
}

// fakeTransport is one agent's end of a fakeNet: a bridge.Transport.
type fakeTransport struct {
	net       *fakeNet
	self      peer.ID
	in        chan overlay.Received
	queue     chan fakeFrame // frames waiting for the validator
	validator atomic.Pointer[overlay.InboxValidator]
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	peers     []*model.Peer                    // the peer table; guarded by mu
	hooks     []func(*model.Peer)              // guarded by mu
	penalties []fakePenalty                    // guarded by mu
	verdicts  map[overlay.ValidationResult]int // the validator's answers; guarded by mu
}

// fakePenalty is one Penalize call.
type fakePenalty struct {
	peer   peer.ID
	reason string
}

var _ Transport = (*fakeTransport)(nil)

func (t *fakeTransport) enqueue(f fakeFrame) {
	select {
	case t.queue <- f:
	case <-t.ctx.Done():
	}
}

// read judges queued frames one at a time, as a stream reader does.
func (t *fakeTransport) read() {
	defer close(t.done)
	defer close(t.in)
	for {
		select {
		case <-t.ctx.Done():
			return
		case f := <-t.queue:
			res, checked := overlay.ValidationAccept, any(nil)
			if v := t.validator.Load(); v != nil {
				res, checked = (*v)(t.ctx, f.from, f.data)
			}
			t.mu.Lock()
			t.verdicts[res]++
			t.mu.Unlock()
			if res != overlay.ValidationAccept {
				continue
			}
			select {
			case t.in <- overlay.Received{From: f.from, Data: f.data, Topic: overlay.DirectTopic, Checked: checked}:
			case <-t.ctx.Done():
				return
			}
		}
	}
}

// close detaches t and ends its reader (after the bridge using it stopped).
func (t *fakeTransport) close() {
	t.closeOnce.Do(func() {
		t.net.mu.Lock()
		if t.net.ends[t.self] == t {
			delete(t.net.ends, t.self)
		}
		t.net.mu.Unlock()
		t.cancel()
		<-t.done
	})
}

func (t *fakeTransport) Send(_ context.Context, to peer.ID, data []byte) error {
	if len(data) > overlay.DefaultMaxMessageSize-4096 { // about the overlay's MaxPayload
		return fmt.Errorf("fake send of %d bytes: %w", len(data), overlay.ErrTooLarge)
	}
	return t.net.send(t.self, to, data)
}

func (t *fakeTransport) Inbox() <-chan overlay.Received { return t.in }

func (t *fakeTransport) SetInboxValidator(v overlay.InboxValidator) {
	if v == nil {
		t.validator.Store(nil)
		return
	}
	t.validator.Store(&v)
}

func (t *fakeTransport) Peers(context.Context) ([]*model.Peer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*model.Peer, len(t.peers))
	for i, p := range t.peers {
		cp := *p
		out[i] = &cp
	}
	return out, nil
}

// attached reports whether p has a transport on the network.
func (t *fakeTransport) attached(p peer.ID) bool {
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	return t.net.ends[p] != nil
}

func (t *fakeTransport) Up(p peer.ID) bool        { return t.attached(p) }
func (t *fakeTransport) Connected(p peer.ID) bool { return t.attached(p) }

func (t *fakeTransport) OnPeerChange(f func(*model.Peer)) {
	t.mu.Lock()
	t.hooks = append(t.hooks, f)
	t.mu.Unlock()
}

// setPeer puts row in the peer table and tells the hooks, as the
// overlay's table loop does.
func (t *fakeTransport) setPeer(row *model.Peer) {
	t.mu.Lock()
	replaced := false
	for i, p := range t.peers {
		if p.PeerID == row.PeerID {
			t.peers[i], replaced = row, true
		}
	}
	if !replaced {
		t.peers = append(t.peers, row)
	}
	hooks := append([]func(*model.Peer){}, t.hooks...)
	t.mu.Unlock()
	for _, h := range hooks {
		cp := *row
		h(&cp)
	}
}

func (t *fakeTransport) Penalize(p peer.ID, reason string) {
	t.mu.Lock()
	t.penalties = append(t.penalties, fakePenalty{p, reason})
	t.mu.Unlock()
}

// penalized is how many times p was penalized for reason.
func (t *fakeTransport) penalized(p peer.ID, reason string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, x := range t.penalties {
		if x.peer == p && x.reason == reason {
			n++
		}
	}
	return n
}

// judged is how many frames the validator answered res.
func (t *fakeTransport) judged(res overlay.ValidationResult) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.verdicts[res]
}
