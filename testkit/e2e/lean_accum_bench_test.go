package e2e

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkLeanAccumulation: plain noop jobs through the Redis contract
// (as BenchmarkLeanNoopJobs, 4 submitters) on a fresh agent with retention
// on its defaults (a sweep a minute, 10,000 ended jobs kept), after 5,000
// to warm it, HYPHAE_BENCH_ACCUM_JOBS of them (default 150,000; b.N is
// ignored), in blocks of 5,000, and more blocks until accumAtLeast has
// passed, so that retention has swept twice before the end. It reports first-jobs/s (the first two
// blocks), last-jobs/s (the last two) and their ratio (accum-ratio, the
// direction ≥ 0.95), and the store's used memory after the first block,
// at its peak and at the end (redis-MiB-first, -peak, -end); it logs each
// block.
func BenchmarkLeanAccumulation(b *testing.B) {
	total := 150_000
	if s := leanEnvInt(b, "HYPHAE_BENCH_ACCUM_JOBS"); s > 0 {
		total = s
	}
	const block = 5000
	ctx := context.Background()
	a := startLean(b, 1)
	rc, meter := a.redis(b, 1), a.redis(b, 0)
	spread(block, 4, func(s, i int) { leanSubmit(b, rc, s, 10_000_000+i) }) // warm
	var rates, mems []float64
	b.ResetTimer()
	began, stolen0 := time.Now(), readSteal()
	for next := 1; next <= total || time.Since(began) < accumAtLeast; next += block {
		start, stolen := time.Now(), readSteal()
		spread(block, 4, func(s, i int) { leanSubmit(b, rc, s, next+i-1) })
		rates = append(rates, block/time.Since(start).Seconds())
		mems = append(mems, usedMiB(ctx, b, meter))
		b.Logf("jobs %d–%d: %.0f jobs/s, store %.1f MiB, %.0f %% of the CPUs stolen by the host",
			next, next+block-1, rates[len(rates)-1], mems[len(mems)-1], readSteal().since(stolen))
	}
	b.ReportMetric(readSteal().since(stolen0), "steal-%")
	b.StopTimer()
	if len(rates) < 4 {
		b.Fatalf("%d jobs make %d blocks: want at least 4", total, len(rates))
	}
	first := (rates[0] + rates[1]) / 2
	last := (rates[len(rates)-1] + rates[len(rates)-2]) / 2
	peak := 0.0
	for _, m := range mems {
		peak = max(peak, m)
	}
	// Single blocks swing on a shared machine: the medians of the first
	// four and of those after 100,000 jobs are reported beside the
	// issue's two-block figures.
	firstMed, lateMed := median(rates[:min(4, len(rates))]), median(rates[min(100_000/block, len(rates)-2):])
	b.ReportMetric(firstMed, "first-median-jobs/s")
	b.ReportMetric(lateMed, "late-median-jobs/s")
	b.ReportMetric(first, "first-jobs/s")
	b.ReportMetric(last, "last-jobs/s")
	b.ReportMetric(last/first, "accum-ratio")
	b.ReportMetric(mems[0], "redis-MiB-first")
	b.ReportMetric(peak, "redis-MiB-peak")
	b.ReportMetric(mems[len(mems)-1], "redis-MiB-end")
	b.ReportMetric(float64(len(rates)*block), "jobs")
	b.ReportMetric(0, "ns/op")
}

// accumAtLeast is how long BenchmarkLeanAccumulation runs at least: two
// of retention's default sweeps, and some.
const accumAtLeast = 130 * time.Second

// usedMiB is the store's used_memory (INFO memory), in MiB.
func usedMiB(ctx context.Context, b *testing.B, c *redis.Client) float64 {
	info, err := c.Info(ctx, "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n / (1 << 20)
		}
	}
	b.Fatal("INFO memory: no used_memory")
	return 0
}

// leanEnvInt reads a whole number from env, 0 when unset.
func leanEnvInt(b *testing.B, env string) int {
	s := os.Getenv(env)
	if s == "" {
		return 0
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a whole number", env, s)
	}
	return n
}

// median is the middle of vs (the mean of the two middle ones for an even
// count); vs is not changed.
func median(vs []float64) float64 {
	c := slices.Clone(vs)
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// steal is the cpu line of /proc/stat: time stolen by the hypervisor and
// all time, in ticks (zero where it cannot be read).
type steal struct{ stolen, all float64 }

func readSteal() steal {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return steal{}
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	var s steal
	for i, v := range f[1:] {
		n, _ := strconv.ParseFloat(v, 64)
		if i < 8 { // user … steal; guest time is counted in user already
			s.all += n
		}
		if i == 7 {
			s.stolen = n
		}
	}
	return s
}

// since is the share of all CPU time stolen between then and s, in per cent.
func (s steal) since(then steal) float64 {
	if d := s.all - then.all; d > 0 {
		return 100 * (s.stolen - then.stolen) / d
	}
	return 0
}
