package overlay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// pair starts A, and B bootstrapped from A, with cfgB's NoDirect as given;
// it returns once each sees the other up.
func pair(t *testing.T, noDirectB bool) (a, b *agent) {
	t.Helper()
	a = startAgent(t, testConfig())
	cfgB := testConfig()
	cfgB.Bootstrap, cfgB.NoDirect = []string{a.addr()}, noDirectB
	b = startAgent(t, cfgB)
	waitFor(t, 10*time.Second, "A and B see each other", func() bool {
		return a.seesUp(t, b.o.ID()) && b.seesUp(t, a.o.ID())
	})
	return a, b
}

// send sends data from x to y within 10s.
func send(t *testing.T, x, y *agent, data string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := x.o.Send(ctx, y.o.ID(), []byte(data)); err != nil {
		t.Fatal(err)
	}
}

// Between connected agents frames go on direct streams, both ways, in
// order, none through gossipsub; the receiver sees the sender as From.
func TestSendDirect(t *testing.T) {
	a, b := pair(t, false)
	for i := range 50 {
		send(t, b, a, fmt.Sprint("to a ", i))
		send(t, a, b, fmt.Sprint("to b ", i))
	}
	for i := range 50 {
		got := recv(t, a, 10*time.Second)
		if want := fmt.Sprint("to a ", i); string(got.Data) != want || got.From != b.o.ID() || got.Topic != DirectTopic {
			t.Fatalf("A got %q from %s on %q, want %q from B on %q", got.Data, got.From, got.Topic, want, DirectTopic)
		}
		if got := recv(t, b, 10*time.Second); string(got.Data) != fmt.Sprint("to b ", i) || got.Topic != DirectTopic {
			t.Fatalf("B got %q on %q", got.Data, got.Topic)
		}
	}
	for _, x := range []*agent{a, b} {
		if s := x.o.FrameStats(); s.Direct != 50 || s.Published != 0 || s.DirectIn != 50 || s.Fallbacks != 0 {
			t.Fatalf("%s: %+v, want 50 direct each way and nothing published", x.o.ID(), s)
		}
	}
	expectNothing(t, a)
	expectNothing(t, b)
}

// An agent that does not take direct streams (overlay.direct off, or an
// older version) still gets every frame, through its inbox topic.
func TestSendDirectFallsBackToGossipsub(t *testing.T) {
	a, b := pair(t, true)
	for i := range 3 {
		send(t, a, b, fmt.Sprint("to b ", i))
	}
	got := map[string]bool{} // gossipsub's validation workers may reorder
	for range 3 {
		r := recv(t, b, 10*time.Second)
		if r.Topic != InboxTopic(b.o.ID()) {
			t.Fatalf("B got %q on %q", r.Data, r.Topic)
		}
		got[string(r.Data)] = true
	}
	if !got["to b 0"] || !got["to b 1"] || !got["to b 2"] {
		t.Fatalf("B got %v", got)
	}
	send(t, b, a, "to a")
	if got := recv(t, a, 10*time.Second); string(got.Data) != "to a" || got.Topic != InboxTopic(a.o.ID()) {
		t.Fatalf("A got %q on %q", got.Data, got.Topic)
	}
	if s := a.o.FrameStats(); s.Direct != 0 || s.Published != 3 {
		t.Fatalf("A: %+v, want 3 published, none direct", s)
	}
}

// An agent that restarts ends the streams to it on its way down; once it
// is back, frames to it go on a direct stream again at once, not after the
// backoff that a failed stream earns.
func TestSendDirectAfterPeerRestart(t *testing.T) {
	a, b := sentDirect(t)
	shutdown(t, b.agent)
	waitFor(t, 10*time.Second, "A disconnected from B", func() bool { return !a.o.Connected(b.o.ID()) })
	sendAfterRestart(t, a, b)
}

// A peer that goes away leaves nothing behind in the sender's bookkeeping
// of direct streams once the next sweep has run (a long-running agent
// does not keep a slot for every peer it ever talked to), and when it
// comes back the next message goes direct again, on a fresh slot.
func TestDirectForgetsPeersThatLeft(t *testing.T) {
	a, b := sentDirect(t)
	if !a.o.direct.holds(b.o.ID()) {
		t.Fatal("A keeps no stream slot for B after sending to it")
	}
	shutdown(t, b.agent)
	waitFor(t, 10*time.Second, "A forgets B's stream slot", func() bool { return !a.o.direct.holds(b.o.ID()) })
	sendAfterRestart(t, a, b)
}

// restartable is an agent with what it takes to start it again.
type restartable struct {
	*agent
	cfg Config
	key crypto.PrivKey
}

// sentDirect starts A, and B bootstrapped from A, and sends "before" from
// A to B, which must arrive on the direct stream.
func sentDirect(t *testing.T) (*agent, restartable) {
	a := startAgent(t, testConfig())
	b := restartable{cfg: testConfig(), key: newKey(t)}
	b.cfg.Bootstrap = []string{a.addr()}
	b.agent = startAgentKey(t, b.cfg, b.key)
	waitFor(t, 10*time.Second, "A connected to B", func() bool { return a.o.Connected(b.o.ID()) })
	send(t, a, b.agent, "before")
	if got := recv(t, b.agent, 10*time.Second); string(got.Data) != "before" || got.Topic != DirectTopic {
		t.Fatalf("B got %q on %q", got.Data, got.Topic)
	}
	return a, b
}

// sendAfterRestart starts b again and sends "after" from a, which must
// arrive on a direct stream.
func sendAfterRestart(t *testing.T, a *agent, b restartable) {
	again := startAgentKey(t, b.cfg, b.key)
	waitFor(t, 10*time.Second, "A connected to B again", func() bool { return a.o.Connected(again.o.ID()) })
	send(t, a, again, "after")
	if got := recv(t, again, 10*time.Second); string(got.Data) != "after" || got.Topic != DirectTopic {
		t.Fatalf("B, restarted, got %q on %q; A %+v", got.Data, got.Topic, a.o.FrameStats())
	}
}

func shutdown(t *testing.T, x *agent) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := x.o.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

// holds reports whether a stream slot for p is kept.
func (d *directState) holds(p peer.ID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.out[p] != nil
}

// Rejected frames on a direct stream are counted and not delivered, the
// frames after them are; a peer with directMaxStrikes rejected frames has
// its direct streams refused, and what it sends then goes through
// gossipsub, where its peer score drops.
func TestDirectStrikes(t *testing.T) {
	a, b := pair(t, false)
	a.o.SetInboxValidator(func(_ context.Context, _ peer.ID, data []byte) (ValidationResult, any) {
		if bytes.HasPrefix(data, []byte("bad")) {
			return ValidationReject, nil
		}
		return ValidationAccept, nil
	})
	send(t, b, a, "bad 1")
	send(t, b, a, "good 1")
	if got := recv(t, a, 10*time.Second); string(got.Data) != "good 1" || got.Topic != DirectTopic {
		t.Fatalf("A got %q on %q", got.Data, got.Topic)
	}
	if s := a.o.FrameStats(); s.Rejected != 1 || s.Refused != 0 {
		t.Fatalf("after one bad frame: %+v", s)
	}
	for i := 2; i <= directMaxStrikes; i++ {
		send(t, b, a, fmt.Sprint("bad ", i))
	}
	waitFor(t, 10*time.Second, "A refuses B's direct streams", func() bool { return a.o.FrameStats().Refused == 1 })
	// B learns it from its stream's reset; a frame written before that is
	// lost, as a frame can be on gossipsub (the bridge's outbox resends).
	waitFor(t, 10*time.Second, "a frame from B through gossipsub", func() bool {
		send(t, b, a, "good 2")
		select {
		case got := <-a.o.Inbox():
			if string(got.Data) != "good 2" || got.Topic != InboxTopic(a.o.ID()) {
				t.Fatalf("A got %q on %q", got.Data, got.Topic)
			}
			return true
		case <-time.After(time.Second):
			return false
		}
	})
	send(t, b, a, "bad again")
	waitFor(t, 10*time.Second, "B's score drops", func() bool {
		s, ok := a.o.PeerScore(b.o.ID())
		return ok && s < 0
	})
	if s := a.o.FrameStats(); s.Rejected != directMaxStrikes {
		t.Fatalf("A: %+v, want %d rejected on direct streams", s, directMaxStrikes)
	}
}

// A direct stream that breaks the framing (a length over the limit, a cut
// frame) or carries a frame for another agent is ended and counted; the
// agent goes on taking other streams.
func TestDirectMalformedStreams(t *testing.T) {
	a, b := pair(t, false)
	other := fuzzPeer(t, 9)
	forOther, err := encodeFrame(other, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"too large": lengthPrefixed(make([]byte, a.o.cfg.MaxMessageSize+1))[:8],
		"cut":       lengthPrefixed(make([]byte, 100))[:50],
		"not ours":  lengthPrefixed(forOther),
		"empty":     lengthPrefixed(nil),
	}
	n := int64(0)
	for name, raw := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		s, err := b.o.Host().NewStream(ctx, a.o.ID(), DirectProtocol)
		cancel()
		if err != nil {
			t.Fatal(name, err)
		}
		if _, err := s.Write(raw); err != nil {
			t.Fatal(name, err)
		}
		if name == "cut" {
			_ = s.CloseWrite()
		}
		n++
		waitFor(t, 10*time.Second, name+" counted", func() bool { return a.o.FrameStats().Rejected == n })
		_ = s.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := s.Read(make([]byte, 1)); err == nil || errors.Is(err, errTimeout) {
			t.Fatalf("%s: A kept the stream open (%v)", name, err)
		}
		_ = s.Reset()
	}
	send(t, b, a, "still here")
	if got := recv(t, a, 10*time.Second); string(got.Data) != "still here" {
		t.Fatalf("A got %q", got.Data)
	}
	expectNothing(t, a)
}

// errTimeout stands for a read deadline passing (any error whose Timeout
// is true), as a target for errors.Is.
var errTimeout = timeoutErr{}

type timeoutErr struct{}

func (timeoutErr) Error() string { return "timeout" }
func (timeoutErr) Is(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// FuzzReadDirectFrame guards direct streams: reading frames from any bytes
// never panics, never returns more than the limit, and gives back every
// frame of a well-formed stream.
func FuzzReadDirectFrame(f *testing.F) {
	var stream []byte
	for _, s := range frameSeeds(f) {
		if len(s) > 1<<10 {
			continue // large frames slow the fuzzer and add no new paths
		}
		f.Add(lengthPrefixed(s))
		stream = append(stream, lengthPrefixed(s)...)
	}
	f.Add(stream)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Add([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01})
	f.Add([]byte{0x05, 'a', 'b'})
	const limit = 1 << 12
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		var again []byte
		for {
			fr, err := readDirectFrame(r, limit)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if !errors.Is(err, errFrameShort) && !errors.Is(err, errFrameTooLarge) {
					t.Fatalf("error %v is neither short nor too large", err)
				}
				return
			}
			if len(fr) > limit {
				t.Fatalf("frame of %d bytes over the limit", len(fr))
			}
			again = append(again, lengthPrefixed(fr)...)
		}
		fr, err := readDirectFrame(bufio.NewReader(bytes.NewReader(again)), limit)
		if len(again) > 0 && err != nil || len(again) == 0 && !errors.Is(err, io.EOF) {
			t.Fatalf("re-read of %x: %x, %v", again, fr, err)
		}
	})
}
