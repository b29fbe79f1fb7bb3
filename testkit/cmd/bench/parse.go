package main

import (
	"bufio"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// results holds every benchmark line seen, by name (GOMAXPROCS suffix
// removed, e.g. "BenchmarkPresenceTraffic/agents=5"): one metric map per
// line, so -count N gives N maps. Skips and failures are kept by name too.
type results struct {
	lines   map[string][]map[string]float64
	skipped map[string]string // benchmark → skip message
	failed  []failure         // runs that did not finish
}

// failure is a run that exited non-zero: its -bench pattern and why.
type failure struct {
	bench *regexp.Regexp
	msg   string
}

func newResults() *results {
	return &results{lines: map[string][]map[string]float64{}, skipped: map[string]string{}}
}

var (
	// BenchmarkX/sub-2   	    2000	  123 ns/op	  1.5 p50-µs ...
	benchLine = regexp.MustCompile(`^(Benchmark\S+)\s+(\d+)\s+(.*)$`)
	procs     = regexp.MustCompile(`-\d+$`)
	skipLine  = regexp.MustCompile(`^\s*--- SKIP: (Benchmark\S+)`)
)

// parse reads `go test -bench` output and records benchmark lines (with
// custom metrics: every "value unit" pair after the iteration count) and
// skipped benchmarks (with the message on the line after --- SKIP).
func (r *results) parse(out io.Reader) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	skipping := ""
	for sc.Scan() {
		line := sc.Text()
		if skipping != "" {
			if msg := strings.TrimSpace(line); msg != "" && strings.HasPrefix(line, " ") {
				if _, after, ok := strings.Cut(msg, ": "); ok { // "bench_test.go:181: why"
					msg = after
				}
				r.skipped[skipping] = msg
			}
			skipping = ""
		}
		if m := skipLine.FindStringSubmatch(line); m != nil {
			skipping = m[1]
			r.skipped[skipping] = "skipped"
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name := procs.ReplaceAllString(m[1], "")
		metrics := map[string]float64{}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			metrics[f[i+1]] = v
		}
		if n, err := strconv.ParseFloat(m[2], 64); err == nil {
			metrics["iterations"] = n
		}
		r.lines[name] = append(r.lines[name], metrics)
	}
}

// get returns the median over the lines of name of metric unit.
func (r *results) get(name, unit string) (float64, bool) {
	var vs []float64
	for _, m := range r.lines[name] {
		if v, ok := m[unit]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// why explains a missing figure for benchmark name: skipped (with the
// message), failed (with the run's reason), or not run.
func (r *results) why(name string) string {
	if msg, ok := r.skipped[name]; ok {
		return "skipped: " + msg
	}
	for n, msg := range r.skipped { // a parent skipped
		if strings.HasPrefix(name, n+"/") {
			return "skipped: " + msg
		}
	}
	top, _, _ := strings.Cut(name, "/")
	for _, f := range r.failed {
		if f.bench.MatchString(top) {
			return "failed: " + f.msg
		}
	}
	return "not run"
}
