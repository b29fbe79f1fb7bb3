package bridge

import (
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A peer down past the grace is reported lost once per time it is down,
// so lostRunners reads the awaiting jobs once for it, not on every pass.
func TestDownPeersLostOncePerOutage(t *testing.T) {
	var d downPeers
	a, b := peer.ID("a"), peer.ID("b")
	d.changed(a, false)
	d.changed(b, false)
	if got := d.lost(time.Hour); got != nil {
		t.Fatalf("lost within the grace: %v", got)
	}
	d.since[a] = time.Now().Add(-time.Hour) // down an hour
	if got := d.lost(0); got != nil {
		t.Fatalf("lost with no grace (never): %v", got)
	}
	if got := d.lost(time.Minute); len(got) != 1 || !got[a] {
		t.Fatalf("lost = %v, want a alone", got)
	}
	if got := d.lost(time.Minute); got != nil {
		t.Fatalf("lost again in the same outage: %v", got)
	}
	d.changed(a, false) // still down: nothing changes
	if got := d.lost(time.Minute); got != nil {
		t.Fatalf("lost after a repeated down notice: %v", got)
	}
	d.changed(a, true)
	d.changed(a, false)
	d.since[a] = time.Now().Add(-time.Hour)
	if got := d.lost(time.Minute); len(got) != 1 || !got[a] {
		t.Fatalf("lost after coming back and going down again = %v, want a", got)
	}
}
