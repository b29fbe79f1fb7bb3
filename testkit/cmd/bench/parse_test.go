package main

import (
	"regexp"
	"strings"
	"testing"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/hyphae-run/hyphae/executor
cpu: AMD EPYC
BenchmarkNoopJob-2         	     300	      1611 jobs/s	       584.0 p50-µs	      1501 p99-µs	       331.0 runner-p50-µs
BenchmarkNoopJob-2         	     300	      1711 jobs/s	       594.0 p50-µs	      1401 p99-µs	       331.0 runner-p50-µs
BenchmarkNoopJob-2         	     300	      1811 jobs/s	       604.0 p50-µs	      1301 p99-µs	       331.0 runner-p50-µs
BenchmarkSealOpen-2   	    5000	     98765 ns/op	  10.37 MB/s	   12345 B/op	      67 allocs/op
BenchmarkPresenceTraffic/agents=50-2        	       1	4281338156 ns/op	       721.2 KiB/agent/min	       747.0 msgs/agent/min
--- SKIP: BenchmarkTimeToFirstPeer/mdns
    bench_test.go:181: no multicast interface
BenchmarkTimeToFirstPeer/bootstrap         	       2	  47748500 ns/op	        19.00 p50-ms
PASS
`

func TestParse(t *testing.T) {
	r := newResults()
	r.parse(strings.NewReader(sample))
	check := func(name, unit string, want float64) {
		t.Helper()
		if got, ok := r.get(name, unit); !ok || got != want {
			t.Errorf("%s %s = %v, %v; want %v", name, unit, got, ok, want)
		}
	}
	check("BenchmarkNoopJob", "p50-µs", 594) // median of 3
	check("BenchmarkNoopJob", "jobs/s", 1711)
	check("BenchmarkNoopJob", "iterations", 300)
	check("BenchmarkSealOpen", "ns/op", 98765)
	check("BenchmarkSealOpen", "allocs/op", 67)
	check("BenchmarkPresenceTraffic/agents=50", "msgs/agent/min", 747)
	check("BenchmarkTimeToFirstPeer/bootstrap", "p50-ms", 19) // no -procs suffix
	if w := r.why("BenchmarkTimeToFirstPeer/mdns"); w != "skipped: no multicast interface" {
		t.Errorf("why mdns = %q", w)
	}
	if _, ok := r.get("BenchmarkTimeToFirstPeer/mdns", "p50-ms"); ok {
		t.Error("a skipped benchmark has a figure")
	}
	r.failed = append(r.failed, failure{regexp.MustCompile(`^Benchmark(ChainEdge|FanOut1000)$`), "boom"})
	if w := r.why("BenchmarkFanOut1000"); w != "failed: boom" {
		t.Errorf("why fan-out = %q", w)
	}
	if w := r.why("BenchmarkFlowChainEdge/agents=2"); w != "not run" {
		t.Errorf("why flow chain = %q", w)
	}
}

func TestTableMarksMissesAndMeets(t *testing.T) {
	r := newResults()
	r.parse(strings.NewReader(`BenchmarkRawRedisCycle-2   	     300	      3176 jobs/s	       259.0 p50-µs	      790.0 p99-µs
BenchmarkNoopJob-2         	     300	      1611 jobs/s	       584.0 p50-µs	      1501 p99-µs	       331.0 runner-p50-µs
BenchmarkSealOpen-2   	    5000	     98765 ns/op
`))
	tb := build(r)
	find := func(prefix string) row {
		for _, g := range tb.groups {
			for _, rw := range tb.rows[g] {
				if strings.HasPrefix(rw.what, prefix) {
					return rw
				}
			}
		}
		t.Fatalf("no row %q", prefix)
		return row{}
	}
	if rw := find("noop job, enqueue"); rw.met != "**NO**" || rw.ratio != "2.25×" || rw.ours != "584 µs" {
		t.Errorf("noop p50 row: %+v", rw)
	}
	if rw := find("seal + marshal"); rw.met != "yes" || rw.ours != "98.8 µs" {
		t.Errorf("seal row: %+v", rw)
	}
	if rw := find("job save+load, separate"); rw.met != "n/a" || !strings.Contains(rw.ours, "not run") {
		t.Errorf("store row: %+v", rw)
	}
}
