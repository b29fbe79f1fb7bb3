package executor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// A late report from a superseded attempt is ignored: attempt 1 is still
// running when the job is put back as attempt 2 (as a reaper would);
// attempt 2 finishes; attempt 1 ending afterwards changes nothing.
func TestLateReportOfSupersededAttemptIgnored(t *testing.T) {
	h := newHarness(t)
	r := h.start(t, h.config())
	c := h.client(t, 1)
	marks := t.TempDir()
	script := `if [ "$HYPHAE_ATTEMPT" = 1 ]; then touch ` + marks + `/started1; while [ ! -e ` + marks + `/go1 ]; do sleep 0.05; done; fi
echo "who=$HYPHAE_ATTEMPT" >> "$HYPHAE_RESULT"`
	key := submit(t, c, 1, 1, "sh", script)
	waitFile(t, filepath.Join(marks, "started1"))
	if _, err := h.st.Jobs.RequeueJob(context.Background(), 1, key, "sh", 1, nil); err != nil {
		t.Fatal(err)
	}
	got := waitEnd(t, c, key)
	if got["attempt"] != "2" || resultOf(t, got)["who"] != "2" {
		t.Fatalf("after attempt 2: %v", got)
	}
	if err := os.WriteFile(filepath.Join(marks, "go1"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := r.Shutdown(ctx); err != nil { // waits for attempt 1 to settle
		t.Fatal(err)
	}
	if final := c.HGetAll(context.Background(), key).Val(); final["status"] != "finished" ||
		final["attempt"] != "2" || resultOf(t, final)["who"] != "2" {
		t.Fatalf("late report changed the job: %v", final)
	}
}

// Shutdown kills what still runs at its deadline: "error: drained", or put
// back as a new attempt when retries allow, and says so with the deadline's
// error. It is safe to call twice and leaves no runner goroutine behind.
func TestShutdownDrains(t *testing.T) {
	h := newHarness(t)
	r := h.start(t, h.config())
	c := h.client(t, 1)
	marks := t.TempDir()
	long := `touch ` + marks + `/$HYPHAE_JOB_ID; trap '' TERM; while :; do sleep 1; done`
	noRetry := submit(t, c, 1, 1, "sh", long)
	retry := submit(t, c, 1, 2, "sh", long, "retries", 1)
	waitFile(t, filepath.Join(marks, "1"))
	waitFile(t, filepath.Join(marks, "2"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := r.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("shutdown past its deadline: %v", err)
	}
	if err := r.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.HGetAll(context.Background(), noRetry).Val(); got["status"] != "error" || got["error"] != "drained" {
		t.Fatalf("no-retry job: %v", got)
	}
	got := c.HGetAll(context.Background(), retry).Val()
	if got["status"] != "dispatched" || got["attempt"] != "2" || got["error"] != "attempt 1: drained (retrying)" {
		t.Fatalf("retry job: %v", got)
	}
	if q := mustLRange(t, c, "queue:sh"); len(q) != 1 || q[0] != retry {
		t.Fatalf("queue:sh = %v", q)
	}
	waitFor(t, "no runner goroutines", func() bool { return !runnerGoroutines() })
}

// Shutdown with a context that has already ended, while a job runs,
// drains the job and reports the timeout like the other parts do: an error
// wrapping context.DeadlineExceeded that counts the jobs it killed.
func TestShutdownExpiredContextReportsTimeout(t *testing.T) {
	h := newHarness(t)
	r := h.start(t, h.config())
	c := h.client(t, 1)
	marks := t.TempDir()
	key := submit(t, c, 1, 1, "sh", `touch `+marks+`/started; while :; do sleep 1; done`)
	waitFile(t, filepath.Join(marks, "started"))
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	err := r.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "1 jobs still running") {
		t.Fatalf("shutdown with an expired context: %v", err)
	}
	if got := c.HGetAll(context.Background(), key).Val(); got["status"] != "error" || got["error"] != "drained" {
		t.Fatalf("job after shutdown: %v", got)
	}
}

// runnerGoroutines reports whether a goroutine runs code of the Runner.
func runnerGoroutines() bool {
	buf := make([]byte, 1<<20)
	s := string(buf[:runtime.Stack(buf, true)])
	return strings.Contains(s, "executor.(*Runner)") || strings.Contains(s, "executor.(*logSink)")
}

// OnJobDone hooks see each job's final state once; the noop type finishes
// without running anything.
func TestOnJobDoneAndNoop(t *testing.T) {
	h := newHarness(t)
	r, _ := newUnstarted(t, h, h.config())
	var mu sync.Mutex
	seen := map[string]*model.RunnerJob{}
	r.OnJobDone(func(ctxID uint64, j *model.RunnerJob) {
		mu.Lock()
		defer mu.Unlock()
		seen[j.Name] = j
	})
	startRunner(t, r)
	ctx := context.Background()
	for _, j := range []*model.RunnerJob{
		{CallerID: 4, ContextID: 1, Name: "noop", ScriptType: "noop", Script: "ignored"},
		{CallerID: 4, ContextID: 1, Name: "fail", ScriptType: "sh", Script: "exit 1"},
	} {
		if err := h.st.Jobs.EnqueueJob(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "two hooks", func() bool { mu.Lock(); defer mu.Unlock(); return len(seen) == 2 })
	if j := seen["noop"]; j.Status != model.JobFinished || j.Result["exit_code"] != "0" || j.ContextID != 1 {
		t.Fatalf("noop job: %+v", j)
	}
	if j := seen["fail"]; j.Status != model.JobError || j.Error != "exit status 1" || j.Attempt != 1 {
		t.Fatalf("failed job: %+v", j)
	}
}

// Logs are kept per job, capped in Redis (full in output.log): the first
// half of the cap live, then, when the job ends, a marker saying what was
// left out and the newest lines; a follower gets all of it, in order.
func TestLogsFollowAndCap(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.LogLines = 6
	h.start(t, cfg)
	c := h.client(t, 1)
	marks := t.TempDir()
	script := `echo one; echo two >&2; touch ` + marks + `/half; while [ ! -e ` + marks + `/go ]; do sleep 0.05; done
i=3; while [ $i -le 10 ]; do echo "line $i"; i=$((i+1)); done`
	key := submit(t, c, 1, 1, "sh", script)
	waitFile(t, filepath.Join(marks, "half"))
	var mu sync.Mutex
	var got []string
	done := make(chan error, 1)
	go func() {
		_, err := h.st.Logs.FollowLogs(context.Background(), 1, key, 0, func(l []string) error {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, l...)
			return nil
		})
		done <- err
	}()
	waitFor(t, "the first two lines live", func() bool { mu.Lock(); defer mu.Unlock(); return len(got) >= 2 })
	if err := os.WriteFile(filepath.Join(marks, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"line 3",
		"[hyphae] log truncated: 4 lines (28 bytes) left out here; the first and last lines are kept",
		"line 8", "line 9", "line 10"}
	first := map[string]bool{} // stdout and stderr are separate pipes: no order between them
	for _, l := range got[:min(2, len(got))] {
		first[l] = true
	}
	if len(got) != 7 || !first["one"] || !first["two"] || strings.Join(got[2:], "|") != strings.Join(want, "|") {
		t.Fatalf("followed %q", got)
	}
	b, err := os.ReadFile(filepath.Join(jobDir(h.dir, 1, 1, 1, 1), "output.log"))
	if err != nil || !strings.HasSuffix(string(b), "line 9\nline 10\n") || !strings.Contains(string(b), "one\n") {
		t.Fatalf("output.log %q %v", b, err)
	}
}
