package overlay

import "sync/atomic"

// FrameStats counts point-to-point frames by the way they went.
type FrameStats struct {
	Direct    int64 // frames sent on a direct stream
	Published int64 // frames published on an inbox or the relay topic
	Fallbacks int64 // direct sends that failed and went through gossipsub
	DirectIn  int64 // frames accepted from direct streams
	Rejected  int64 // frames from direct streams held against their peer
	Refused   int64 // times a peer's direct streams were refused (too many rejected frames)
	Limited   int64 // frames for this agent dropped unjudged: their peer's conduct has it rate limited
	Penalized int64 // messages refused after validation and held against their peer (Penalize)
}

// frameCounters are FrameStats' live counters.
type frameCounters struct {
	direct, published, fallbacks, directIn, rejected, refused, limited, penalized atomic.Int64
}

// FrameStats reads the point-to-point counters.
func (o *Overlay) FrameStats() FrameStats {
	s := &o.stats
	return FrameStats{
		Direct: s.direct.Load(), Published: s.published.Load(), Fallbacks: s.fallbacks.Load(),
		DirectIn: s.directIn.Load(), Rejected: s.rejected.Load(), Refused: s.refused.Load(),
		Limited: s.limited.Load(), Penalized: s.penalized.Load(),
	}
}
