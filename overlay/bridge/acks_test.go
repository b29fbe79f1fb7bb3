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

// A job's start turns its pending ack into one that says the job runs:
// that one rides on no message and goes out on its own (here: flushed),
// and when no ack is pending any more a new one is made; the result
// going first cancels it.
func TestPendingAcksStarted(t *testing.T) {
	var a pendingAcks
	sent := make(chan string, 4)
	a.later("A", "1/m:1", time.Hour, func() { sent <- "plain 1" })
	a.started("A", "1/m:1", time.Hour, func() { sent <- "started 1" })
	a.started("A", "1/m:2", time.Hour, func() { sent <- "started 2" })
	a.later("A", "1/m:2", time.Hour, func() { sent <- "plain 2" }) // the start came first: kept
	a.started("A", "1/m:3", time.Hour, func() { sent <- "started 3" })
	a.resultFor("A", "1/m:3")
	if got := a.piggyback("A"); len(got) != 0 {
		t.Fatalf("acks that say a job runs rode on a message: %v", refs(got))
	}
	sends := a.flush()
	for _, s := range sends {
		s()
	}
	got := map[string]bool{}
	for range sends {
		got[<-sent] = true
	}
	if len(got) != 2 || !got["started 1"] || !got["started 2"] {
		t.Fatalf("flush sent %v, want the two started acks (not the one whose result went first)", got)
	}
}

// An ack that says its job runs goes out by itself once its delay passes.
func TestPendingAckStartedGoesAlone(t *testing.T) {
	var a pendingAcks
	sent := make(chan string, 1)
	a.started("A", "1/m:1", time.Millisecond, func() { sent <- "started" })
	if got := <-sent; got != "started" {
		t.Fatalf("sent %q", got)
	}
	if left := a.flush(); len(left) != 0 {
		t.Fatalf("%d acks still pending after it went", len(left))
	}
}
