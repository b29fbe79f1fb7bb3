package bridge

import (
	"testing"
	"time"
)

// A job the scheduler gave up on as lost (a flow's, LostJob) counts
// against its peer's breaker as a lost plain job does; this agent's own
// ID never gets a breaker.
func TestLostJobCountsAsAFault(t *testing.T) {
	bs, _ := testBreakers(2, time.Minute, time.Minute)
	self, far := testPeerID(t), testPeerID(t).String()
	b := &Bridge{self: self, names: newPeerNames(), breakers: bs}
	b.LostJob(self.String(), "lost")
	if s := bs.of(self.String()); s.Failures != 0 {
		t.Fatalf("own breaker after LostJob(self) = %+v; want none", s)
	}
	for i := 0; i < 2; i++ {
		b.LostJob(far, "runner unreachable for 1h0m0s: lost")
	}
	if s := bs.of(far); s.State != BreakerOpen || s.Failures != 2 || s.LastError != "runner unreachable for 1h0m0s: lost" {
		t.Fatalf("breaker after 2 lost flow jobs = %+v; want open (threshold 2)", s)
	}
}
