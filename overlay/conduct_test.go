package overlay

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A peer's refusals decay by half every conductHalfLife; below
// conductLimitAfter its frames all pass, past it conductBurst pass at once
// and then conductRate a second.
func TestConductLimitsAfterRefusals(t *testing.T) {
	c := newConduct()
	p, honest := peer.ID("p"), peer.ID("honest")
	t0 := time.Unix(1_000_000, 0)
	for range conductLimitAfter - 1 {
		c.mark(p, t0)
		c.mark(honest, time.Now()) // score reads the clock
	}
	for i := range 10 * conductBurst {
		if !c.allow(p, t0) {
			t.Fatalf("frame %d refused with %v refusals, below the limit", i, c.count(p, t0))
		}
	}
	const over = conductLimitAfter + 5
	for range over - (conductLimitAfter - 1) {
		c.mark(p, t0)
	}
	passed := 0
	for range 10 * conductBurst {
		if c.allow(p, t0) {
			passed++
		}
	}
	if passed != conductBurst {
		t.Fatalf("%d frames passed at once past the limit, want the burst, %d", passed, conductBurst)
	}
	later := t0.Add(time.Second * 6 / 5 / conductRate) // 1.2 frames' worth
	if !c.allow(p, later) || c.allow(p, later) {
		t.Fatal("after 1/conductRate of a second, want one frame to pass, not more")
	}
	if n := c.count(p, t0.Add(conductHalfLife)); n < over/2.0-0.01 || n > over/2.0+0.01 {
		t.Fatalf("after a half-life: %v refusals, want %v", n, over/2.0)
	}
	if !c.allow(p, t0.Add(conductHalfLife)) {
		t.Fatal("still limited once the refusals decayed below the limit")
	}
	if s := c.score(honest); s >= 0 || s < conductWeight*conductLimitAfter {
		t.Fatalf("score of a peer with %d refusals: %v", conductLimitAfter-1, s)
	}
	c.sweep(time.Now().Add(100 * conductHalfLife))
	if len(c.peers) != 0 {
		t.Fatalf("%d peers left after their refusals decayed away", len(c.peers))
	}
}

// Messages refused above the overlay (Penalize) cost their sender
// gossipsub score and, past conductLimitAfter, rate limit its frames to
// this agent: at most conductBurst plus conductRate a second pass to the
// validator, the rest are dropped and counted.
func TestPenalizeCostsScoreAndRate(t *testing.T) {
	a, b := pair(t, false)
	judged := make(chan struct{}, 1024)
	a.o.SetInboxValidator(func(_ context.Context, _ peer.ID, _ []byte) (ValidationResult, any) {
		judged <- struct{}{}
		return ValidationAccept, nil
	})
	go func() {
		for range a.o.Inbox() {
		}
	}()
	for range conductLimitAfter + 1 {
		a.o.Penalize(b.o.ID(), "test")
	}
	if _, limited := a.o.Conduct(b.o.ID()); !limited {
		t.Fatal("not limited past conductLimitAfter refusals")
	}
	waitFor(t, 10*time.Second, "B's score to drop", func() bool {
		s, ok := a.o.PeerScore(b.o.ID())
		return ok && s < 0
	})

	const sent = 300
	start := time.Now()
	for i := range sent {
		send(t, b, a, fmt.Sprint("frame ", i))
	}
	waitFor(t, 30*time.Second, "every frame judged or dropped", func() bool {
		return int64(len(judged))+a.o.FrameStats().Limited >= sent
	})
	bound := conductBurst + conductRate*time.Since(start).Seconds() + 1
	if n := float64(len(judged)); n > bound {
		t.Fatalf("%v frames judged, want at most %v (burst, and the rate over the time taken)", n, bound)
	}
	if sent > bound && a.o.FrameStats().Limited == 0 {
		t.Fatal("no frame dropped")
	}
}
