package bridge

import (
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A peer down past the grace has its jobs looked at when the grace ends
// and then only when it asked (later): the sweep reads the awaiting jobs
// once per step of an outage, not on every pass; a return is reported
// once, and only a change between down and up counts.
func TestDownPeersDueOncePerStep(t *testing.T) {
	var d downPeers
	a, b := peer.ID("a"), peer.ID("b")
	d.changed(a, false)
	d.changed(b, false)
	now := time.Now()
	if down, _ := d.due(now, time.Hour); down != nil {
		t.Fatalf("due within the grace: %v", down)
	}
	d.since[a] = now.Add(-time.Hour) // down an hour
	if down, _ := d.due(now, 0); down != nil {
		t.Fatalf("due with no grace (never): %v", down)
	}
	down, _ := d.due(now, time.Minute)
	if len(down) != 1 || !down[a].Equal(now.Add(-time.Hour)) {
		t.Fatalf("due = %v, want a, down since an hour", down)
	}
	d.later(a, now.Add(time.Minute))
	if down, _ := d.due(now, time.Minute); down != nil {
		t.Fatalf("due again before its next look: %v", down)
	}
	if down, _ := d.due(now.Add(time.Minute), time.Minute); !down[a].Equal(now.Add(-time.Hour)) {
		t.Fatalf("not due at its next look: %v", down)
	}
	d.later(a, time.Time{}) // nothing left to give up on
	if down, _ := d.due(now.Add(time.Hour), time.Minute); !down[a].IsZero() {
		t.Fatalf("due with nothing left to look at: %v", down)
	}
	if d.changed(a, false) { // still down: nothing changes
		t.Fatal("a repeated down notice reported a return")
	}
	if !d.changed(a, true) || d.changed(a, true) {
		t.Fatal("a return is reported once")
	}
	if _, back := d.due(now, time.Minute); len(back) != 1 || !back[a] {
		t.Fatalf("back = %v, want a", back)
	}
	if _, back := d.due(now, time.Minute); len(back) != 0 {
		t.Fatalf("back reported twice: %v", back)
	}
	d.changed(a, false)
	d.since[a] = now.Add(-time.Hour)
	if down, _ := d.due(now, time.Minute); down[a].IsZero() {
		t.Fatalf("due after coming back and going down again = %v, want a", down)
	}
}
