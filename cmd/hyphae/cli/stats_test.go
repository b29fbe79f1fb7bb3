package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// hyphae stats prints a line per context (queued, waiting, running,
// finished, failed, rates), then each non-empty queue and the newest
// failures.
func TestStatsTable(t *testing.T) {
	st := wire.ContextStats{Context: 2, Jobs: 9,
		Counts:   map[string]int{"dispatched": 2, "started": 1, "finished": 4, "error": 2},
		Queues:   map[string]int64{"sh": 2, "python": 0},
		Rates:    []wire.RateBucket{{Created: 100}, {Created: 5, Finished: 3, Failed: 2}, {}, {}, {}, {Created: 5}},
		Failures: []wire.FailureView{{Key: "job:1:7", Error: "exit status 3: boom", UpdatedAt: time.Now().Unix()}}}
	var b bytes.Buffer
	printStats(&b, []wire.ContextStats{st})
	out := b.String()
	if !regexp.MustCompile(`(?m)^CONTEXT +JOBS +QUEUED +WAITING +RUNNING +FINISHED +FAILED +CREATED/MIN +ENDED/MIN\n2 +9 +2 +2 +1 +4 +2 +2\.0 +1\.0$`).MatchString(out) {
		t.Fatalf("stats:\n%s", out)
	}
	for _, want := range []string{"context 2 queue sh: 2 waiting", "job:1:7: exit status 3: boom"} {
		if !strings.Contains(out, want) {
			t.Errorf("stats lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "queue python") {
		t.Errorf("stats shows an empty queue:\n%s", out)
	}
}

// stats --watch redraws until interrupted, and then exits 0.
func TestStatsWatchRedrawsUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var b bytes.Buffer
	n := 0
	err := watchStats(ctx, &b, time.Millisecond, func() error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if err != nil || n != 3 || strings.Count(b.String(), "Ctrl-C stops") != 3 {
		t.Fatalf("watch: err %v, %d views:\n%s", err, n, b.String())
	}
}
