package executor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// 200 jobs under a concurrency limit of 3: the jobs themselves count how
// many of them run at once (a counter file updated under flock), and the
// maximum never exceeds the limit.
func TestConcurrencyLimitMeasuredByJobs(t *testing.T) {
	const jobs, limit = 200, 3
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = limit
	r := h.start(t, cfg)
	c := h.client(t, 1)
	d := t.TempDir()
	counter, lock, seen := filepath.Join(d, "count"), filepath.Join(d, "lock"), filepath.Join(d, "seen")
	if err := os.WriteFile(counter, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`flock %[1]s sh -c 'n=$(( $(cat %[2]s) + 1 )); echo $n > %[2]s; echo $n >> %[3]s'
echo working
flock %[1]s sh -c 'echo $(( $(cat %[2]s) - 1 )) > %[2]s'`, lock, counter, seen)
	keys := make([]string, jobs)
	for i := range keys {
		keys[i] = submit(t, c, 1, i+1, "sh", script)
	}
	for _, k := range keys {
		if got := waitEnd(t, c, k); got["status"] != "finished" {
			t.Fatalf("%s: %v", k, got)
		}
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(string(b))
	peak := 0
	for _, l := range lines {
		n, _ := strconv.Atoi(l)
		peak = max(peak, n)
	}
	if len(lines) != jobs || peak > limit || peak < 1 {
		t.Fatalf("%d starts recorded, peak overlap %d (limit %d)", len(lines), peak, limit)
	}
	t.Logf("peak overlap measured by the jobs: %d (limit %d)", peak, limit)
	// A job that claimed the next one with its completion frees its slot
	// just after the completion is visible.
	waitFor(t, "every slot freed", func() bool { running, _ := r.Load(); return running == 0 })
	if _, capacity := r.Load(); capacity != limit {
		t.Fatalf("Load() capacity = %d, want %d", capacity, limit)
	}
}
