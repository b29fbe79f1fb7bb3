package overlaybench

import (
	"slices"
	"testing"
	"time"
)

// Interleaved measures ours beside raw, one for one in the same loop, so
// that load spikes hit both alike: warm rounds of each first, then b.N
// timed rounds. It reports ours as p50-µs, p99-µs and jobs/s (completed
// round trips over their summed time), raw as raw-p50-µs and raw-p99-µs,
// and ratio-p50, ours over raw.
func Interleaved(b *testing.B, warm int, ours, raw func() time.Duration) {
	for range warm {
		ours()
		raw()
	}
	lat, rawLat := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, ours())
		rawLat = append(rawLat, raw())
	}
	b.StopTimer()
	reportPair(b, lat, rawLat)
}

// reportPair reports ours (lat) and raw (rawLat), as Interleaved says,
// unless there are none.
func reportPair(b *testing.B, lat, rawLat []time.Duration) {
	if len(lat) == 0 || len(rawLat) == 0 {
		return
	}
	p50, total := report(b, "", lat)
	raw50, _ := report(b, "raw-", rawLat)
	b.ReportMetric(float64(len(lat))/total.Seconds(), "jobs/s")
	b.ReportMetric(float64(p50)/float64(raw50), "ratio-p50")
}

// report sorts lat (not empty) and reports its p50 and p99 as
// <prefix>p50-µs and <prefix>p99-µs; it returns the p50 and the sum.
func report(b *testing.B, prefix string, lat []time.Duration) (p50, total time.Duration) {
	p50, p99, total := Percentiles(lat)
	b.ReportMetric(float64(p50.Microseconds()), prefix+"p50-µs")
	b.ReportMetric(float64(p99.Microseconds()), prefix+"p99-µs")
	return p50, total
}

// Alone measures f on its own, as a baseline taken with nothing beside it:
// warm untimed rounds, then b.N timed ones, each f returning its own
// duration. It reports p50-µs and p99-µs.
func Alone(b *testing.B, warm int, f func() time.Duration) {
	for range warm {
		f()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, f())
	}
	b.StopTimer()
	if b.N == 0 {
		return
	}
	report(b, "", lat)
}

// Percentiles sorts lat (not empty) and returns its p50, p99 and sum.
func Percentiles(lat []time.Duration) (p50, p99, total time.Duration) {
	slices.Sort(lat)
	for _, l := range lat {
		total += l
	}
	return lat[len(lat)/2], lat[len(lat)*99/100], total
}

// Blocks measures ours and raw each with nothing beside it, as Alone
// does, but in the same loop: blocks of block calls of ours, then of raw,
// in turn, until each has b.N. Neither disturbs the other (no call runs
// beside a call of the other), and a slow phase of the machine, which
// lasts far longer than a block, hits both alike. It reports what
// Interleaved reports.
func Blocks(b *testing.B, warm, block int, ours, raw func() time.Duration) {
	for range warm {
		ours()
		raw()
	}
	lat, rawLat := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for len(lat) < b.N {
		n := min(block, b.N-len(lat))
		for range n {
			lat = append(lat, ours())
		}
		for range n {
			rawLat = append(rawLat, raw())
		}
	}
	b.StopTimer()
	reportPair(b, lat, rawLat)
}
