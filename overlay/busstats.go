package overlay

import "sync/atomic"

// BusStats counts point-to-point frames by the way they went.
type BusStats struct {
	Direct    int64 // frames sent on a direct stream
	Published int64 // frames published on an inbox or the relay topic
	Fallbacks int64 // direct sends that failed and went through gossipsub
	DirectIn  int64 // frames accepted from direct streams
	Rejected  int64 // frames from direct streams held against their peer
	Refused   int64 // times a peer's direct streams were refused (too many rejected frames)
}

// busCounters are BusStats' live counters.
type busCounters struct {
	direct, published, fallbacks, directIn, rejected, refused atomic.Int64
}

// BusStats reads the point-to-point counters.
func (o *Overlay) BusStats() BusStats {
	s := &o.stats
	return BusStats{
		Direct: s.direct.Load(), Published: s.published.Load(), Fallbacks: s.fallbacks.Load(),
		DirectIn: s.directIn.Load(), Rejected: s.rejected.Load(), Refused: s.refused.Load(),
	}
}
