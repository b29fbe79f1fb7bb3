package overlay

import "sync/atomic"

// BusStats counts point-to-point frames by the way they went.
type BusStats struct {
	Direct    int64 // frames sent on a direct stream
	Published int64 // frames published on an inbox or the relay topic
	Fallbacks int64 // direct sends that failed and went through gossipsub
	DirectIn  int64 // frames accepted from direct streams
	Refused   int64 // direct streams ended for a frame held against their peer
}

// busCounters are BusStats' live counters.
type busCounters struct {
	direct, published, fallbacks, directIn, refused atomic.Int64
}

// BusStats reads the point-to-point counters.
func (o *Overlay) BusStats() BusStats {
	s := &o.stats
	return BusStats{
		Direct: s.direct.Load(), Published: s.published.Load(), Fallbacks: s.fallbacks.Load(),
		DirectIn: s.directIn.Load(), Refused: s.refused.Load(),
	}
}
