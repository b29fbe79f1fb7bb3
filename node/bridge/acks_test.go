package bridge

import (
	"testing"
	"time"
)

// Pending acks ride on the next message to their peer: piggyback takes
// that peer's acks (and only those), once.
func TestPendingAcksPiggyback(t *testing.T) {
	var a pendingAcks
	sent := make(chan string, 3)
	for _, k := range []struct{ peer, ref string }{{"A", "1/m:1"}, {"A", "1/m:2"}, {"B", "1/m:3"}} {
		a.later(k.peer, k.ref, time.Hour, func() { sent <- k.ref })
	}
	got := refs(a.piggyback("A"))
	if len(got) != 2 || got[0] == got[1] {
		t.Fatalf("piggyback(A) = %v, want A's two acks", got)
	}
	if again := a.piggyback("A"); len(again) != 0 {
		t.Fatalf("A's acks taken twice: %v", refs(again))
	}
	b := a.piggyback("B")
	if len(b) != 1 || b[0].ref != "1/m:3" {
		t.Fatalf("piggyback(B) = %v", refs(b))
	}
	b[0].send() // a message that did not go out hands its acks back
	if r := <-sent; r != "1/m:3" {
		t.Fatalf("sent %q", r)
	}
	a.stop()
}

// A drain sends every pending ack at once, one message per peer: the
// first ack taken for a peer goes out, and the peer's others ride on it.
func TestPendingAcksFlush(t *testing.T) {
	var a pendingAcks
	sent := make(chan string, 4)
	for _, k := range []struct{ peer, ref string }{{"A", "1/m:1"}, {"A", "1/m:2"}, {"B", "1/m:3"}} {
		a.later(k.peer, k.ref, time.Hour, func() { sent <- k.peer })
	}
	sends := a.flush()
	if len(sends) != 2 {
		t.Fatalf("flush gave %d sends, want one per peer (2)", len(sends))
	}
	for _, s := range sends {
		s()
	}
	if got := []string{<-sent, <-sent}; got[0] == got[1] {
		t.Fatalf("both sends went to %s", got[0])
	}
	if rest := a.piggyback("A"); len(rest) != 1 {
		t.Fatalf("A's other ack: %d left to ride on the flushed message, want 1", len(rest))
	}
	if again := a.flush(); len(again) != 0 {
		t.Fatalf("a second flush found %d", len(again))
	}
}
