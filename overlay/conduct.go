package overlay

import (
	"math"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A peer's conduct: how many of its messages this agent refused lately.
// Two kinds of refusal count: frames the inbox validator rejects
// (malformed, badly signed, replayed …) and messages the layer above
// refuses after reading them (Penalize: a job it may not submit, a result
// for a job not sent to it, a payload that does not decode …). The count
// halves every conductHalfLife. It costs the peer gossipsub score (the
// app-specific part: conductWeight per refusal, so about 50 recent ones
// stop gossip to it and 250 graylist it), and past conductLimitAfter its
// frames for this agent, on every path, are let through at conductRate a
// second (conductBurst at once) and the rest dropped before any check
// costs CPU or Redis. An honest peer with a few refusals (a job sent
// before its grant) keeps its full rate.
const (
	conductHalfLife   = 5 * time.Minute
	conductWeight     = -10
	conductLimitAfter = 20
	conductRate       = 20
	conductBurst      = 40
	// maxConduct bounds the peers tracked; past it, a sweep drops those
	// whose count has decayed away, and new ones wait for room.
	maxConduct = 1 << 16
)

// conduct is the per-peer refusal count and rate limit.
type conduct struct {
	mu    sync.Mutex
	peers map[peer.ID]*standing // guarded by mu
	swept time.Time             // last sweep; guarded by mu
}

// standing is one peer's decayed refusal count and token bucket.
type standing struct {
	marks  float64   // refusals, decayed to at
	at     time.Time // when marks was last decayed
	tokens float64   // frames it may still send now, once limited
	filled time.Time // when tokens was last refilled
}

func newConduct() *conduct { return &conduct{peers: make(map[peer.ID]*standing)} }

// decay brings s's count to now.
func (s *standing) decay(now time.Time) {
	if dt := now.Sub(s.at); dt > 0 {
		s.marks *= math.Exp2(-dt.Seconds() / conductHalfLife.Seconds())
		s.at = now
	}
}

// mark counts one refusal of p's and returns its count.
func (c *conduct) mark(p peer.ID, now time.Time) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.peers[p]
	if s == nil {
		if len(c.peers) >= maxConduct {
			c.sweepLocked(now)
		}
		if len(c.peers) >= maxConduct {
			return 0
		}
		s = &standing{at: now, tokens: conductBurst, filled: now}
		c.peers[p] = s
	}
	s.decay(now)
	s.marks++
	return s.marks
}

// count is p's refusal count now.
func (c *conduct) count(p peer.ID, now time.Time) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.peers[p]
	if s == nil {
		return 0
	}
	s.decay(now)
	return s.marks
}

// allow reports whether a frame from p may be judged now: always, unless
// p's count is past conductLimitAfter; then when its bucket has a token.
func (c *conduct) allow(p peer.ID, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.peers[p]
	if s == nil {
		return true
	}
	s.decay(now)
	if dt := now.Sub(s.filled); dt > 0 {
		s.tokens = min(conductBurst, s.tokens+dt.Seconds()*conductRate)
		s.filled = now
	}
	if s.marks < conductLimitAfter {
		return true
	}
	if s.tokens < 1 {
		return false
	}
	s.tokens--
	return true
}

// score is p's app-specific gossipsub score.
func (c *conduct) score(p peer.ID) float64 {
	return conductWeight * c.count(p, time.Now())
}

// sweep forgets the peers whose count has decayed away, at most once a
// minute.
func (c *conduct) sweep(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.swept) >= time.Minute {
		c.sweepLocked(now)
	}
}

func (c *conduct) sweepLocked(now time.Time) {
	c.swept = now
	for p, s := range c.peers {
		if s.decay(now); s.marks < 0.01 {
			delete(c.peers, p)
		}
	}
}

// Penalize holds one message from p against it: a message the layer above
// refused after it passed the inbox validator (see conduct). Repeated, it
// costs p gossipsub score and rate limits its frames to this agent.
func (o *Overlay) Penalize(p peer.ID, reason string) {
	if p == o.id {
		return
	}
	o.stats.penalized.Add(1)
	if n := o.conduct.mark(p, time.Now()); n >= conductLimitAfter && n < conductLimitAfter+1 {
		o.log.Info("overlay: rate limiting a peer's frames: too many refused messages", "peer", p,
			"last", reason, "rate", conductRate)
	}
}

// Conduct is p's count of refused messages now (decayed) and whether its
// frames to this agent are rate limited.
func (o *Overlay) Conduct(p peer.ID) (refusals float64, limited bool) {
	n := o.conduct.count(p, time.Now())
	return n, n >= conductLimitAfter
}
