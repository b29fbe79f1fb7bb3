package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sitesDirectWithin is how long a run waits for the direct connection
// before counting it as not punched (the target is 5 s).
const sitesDirectWithin = 15 * time.Second

// BenchmarkSites starts the two-site lab of TestSitesBehindNATPunch*
// HYPHAE_SITES_RUNS times (default 20) per transport, each time afresh,
// and reports the seconds from starting A and B to both listing each other
// up, to the first job from B done on A (its `job run --wait` returned),
// and to a direct connection, with how many runs punched one. Run it as
// root:
//
//	go test -run '^$' -bench Sites -benchtime 1x ./testkit/e2e
func BenchmarkSites(b *testing.B) {
	needSites(b)
	runs := 20
	if n, err := strconv.Atoi(os.Getenv("HYPHAE_SITES_RUNS")); err == nil && n > 0 {
		runs = n
	}
	for _, transport := range []string{"tcp", "quic"} {
		b.Run(transport, func(b *testing.B) {
			var all []sitesTimes
			for i := range runs {
				b.Run(fmt.Sprintf("run%02d", i+1), func(b *testing.B) {
					m := startSites(b, transport).measure(b, sitesDirectWithin)
					all = append(all, m)
					b.ReportMetric(m.up.Seconds(), "s_up")
					b.ReportMetric(m.job.Seconds(), "s_job")
					b.ReportMetric(m.direct.Seconds(), "s_direct")
				})
			}
			fmt.Print(sitesSummary(transport, all)) // b.Log of a parent benchmark is not shown
		})
	}
}

// sitesSummary is the table of a transport's runs.
func sitesSummary(transport string, all []sitesTimes) string {
	col := func(f func(sitesTimes) time.Duration) []float64 {
		var v []float64
		for _, m := range all {
			if d := f(m); d > 0 {
				v = append(v, d.Seconds())
			}
		}
		slices.Sort(v)
		return v
	}
	up := col(func(m sitesTimes) time.Duration { return m.up })
	job := col(func(m sitesTimes) time.Duration { return m.job })
	direct := col(func(m sitesTimes) time.Duration { return m.direct })
	within5 := 0
	for _, d := range direct {
		if d <= 5 {
			within5++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\n%s, %d runs: seconds from start (p50 / max)\n", transport, len(all))
	fmt.Fprintf(&sb, "  both up      %s\n", p50max(up))
	fmt.Fprintf(&sb, "  first job    %s\n", p50max(job))
	fmt.Fprintf(&sb, "  direct conn  %s; punched %d/%d (within 5 s: %d)\n", p50max(direct), len(direct), len(all), within5)
	return sb.String()
}

func p50max(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f / %.2f", v[len(v)/2], v[len(v)-1])
}
