package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Seed 004 "retries: Number of retry attempts": a failing job runs again
// up to retries times; it ends error only when they are spent.
func TestHeroRetries(t *testing.T) {
	_, c := heroHarness(t)
	marks := t.TempDir()
	// Fails on its first two runs, counting them in a file.
	flaky := `echo x >> ` + marks + `/flaky; [ $(wc -l < ` + marks + `/flaky) -ge 3 ] && echo ok || exit 3`
	heroJob(t, c, "flaky", flaky, "retries", "2")
	heroJob(t, c, "doomed", `echo x >> `+marks+`/doomed; exit 4`, "retries", "1")
	heroPush(t, c, "flaky", "doomed")
	if rep, hj := heroAwait(t, c, "flaky"); rep != "ok\n" || hj["status"] != "finished" || hj["attempts"] != "3" {
		t.Fatalf("flaky: reply %q, hash %v", rep, hj)
	}
	rep, hj := heroAwait(t, c, "doomed")
	if hj["status"] != "error" || !strings.HasPrefix(rep, "error: ") || hj["attempts"] != "2" {
		t.Fatalf("doomed: reply %q, hash %v", rep, hj)
	}
	if b, _ := os.ReadFile(filepath.Join(marks, "doomed")); strings.Count(string(b), "x") != 2 {
		t.Fatalf("doomed ran %d times, want 1 + retries 1", strings.Count(string(b), "x"))
	}
}

// Seed 004 "prerequisites"/"dependencies": a job waits for the jobs it
// names and runs when they finished; one whose dependency ended error
// ends error without running.
func TestHeroDependencies(t *testing.T) {
	_, c := heroHarness(t)
	marks := t.TempDir()
	release := filepath.Join(marks, "release")
	after := `[ -e ` + marks + `/a_done ] && echo after || echo before`
	heroJob(t, c, "a", `while [ ! -e `+release+` ]; do sleep 0.05; done; touch `+marks+`/a_done`)
	heroJob(t, c, "b", after, "prerequisites", `["a"]`)
	heroJob(t, c, "c", after, "dependencies", `["a"]`)
	heroJob(t, c, "bad", "exit 1")
	heroJob(t, c, "d", `touch `+marks+`/d_ran`, "dependencies", `["bad"]`)
	heroPush(t, c, "b", "c", "d", "bad", "a")
	rep, hj := heroAwait(t, c, "d")
	if hj["status"] != "error" || hj["error"] != "impossible: hero job bad ended error" || rep != "error: "+hj["error"] {
		t.Fatalf("d: reply %q, hash %v", rep, hj)
	}
	if _, err := os.Stat(filepath.Join(marks, "d_ran")); err == nil {
		t.Fatal("d ran although its dependency failed")
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"b", "c"} {
		if rep, hj := heroAwait(t, c, id); rep != "after\n" || hj["status"] != "finished" {
			t.Fatalf("%s: reply %q, hash %v", id, rep, hj)
		}
	}
}

// A job waiting for its dependencies is stopped the way a queued one is:
// error "stopped", and it never runs.
func TestHeroStopWhileWaiting(t *testing.T) {
	_, c := heroHarness(t)
	marks := t.TempDir()
	heroJob(t, c, "never", "true") // never pushed: stays dispatched
	heroJob(t, c, "w", `touch `+marks+`/w_ran`, "dependencies", "never")
	heroPush(t, c, "w")
	waitFor(t, "w taken", func() bool { return c.LLen(context.Background(), "hero:work_queue:w1").Val() == 0 })
	c.LPush(context.Background(), "hero:stop_queue:w1", "w")
	if rep, hj := heroAwait(t, c, "w"); rep != "error: stopped" || hj["error"] != "stopped" {
		t.Fatalf("w: reply %q, hash %v", rep, hj)
	}
	if _, err := os.Stat(filepath.Join(marks, "w_ran")); err == nil {
		t.Fatal("a stopped job ran")
	}
}

// Seed 004 "log_path: Optional path to log file for job output" (read by
// get_job_logs); a path outside the allowed directory (the worker's log
// directory, see TestHeroLogPathConfined) is refused.
func TestHeroLogPath(t *testing.T) {
	h, c := heroHarness(t)
	logf := filepath.Join(h.dir, "hero", "w1", "logs", "job.log")
	heroJob(t, c, "l", `echo to-stdout; echo to-stderr >&2`, "log_path", logf)
	heroJob(t, c, "evil", `echo x`, "log_path", "/proc/hyphae-hero.log")
	heroPush(t, c, "l", "evil")
	if rep, hj := heroAwait(t, c, "l"); hj["status"] != "finished" || rep != "to-stdout\n" {
		t.Fatalf("l: reply %q, hash %v", rep, hj)
	}
	b, err := os.ReadFile(logf)
	if err != nil || !strings.Contains(string(b), "to-stdout") || !strings.Contains(string(b), "to-stderr") {
		t.Fatalf("log_path holds %q (%v)", b, err)
	}
	if _, hj := heroAwait(t, c, "evil"); hj["status"] != "error" || !strings.Contains(hj["error"], "outside the allowed directory") {
		t.Fatalf("evil: hash %v", hj)
	}
}

// Seed 004 "If timeout exceeded: HSET ... status error error timeout".
func TestHeroTimeout(t *testing.T) {
	_, c := heroHarness(t)
	heroJob(t, c, "slow", `sleep 60`, "timeout", "1", "retries", "3")
	heroPush(t, c, "slow")
	rep, hj := heroAwait(t, c, "slow")
	if hj["status"] != "error" || hj["error"] != "timeout" || rep != "error: timeout" || hj["attempts"] != "1" {
		t.Fatalf("reply %q, hash %v", rep, hj)
	}
}
