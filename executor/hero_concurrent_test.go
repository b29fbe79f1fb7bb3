package executor_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Seed 004 "concurrent: Whether to execute in separate thread": a job with
// concurrent=false runs in the worker loop's stead, so the worker takes
// nothing else off its queue until it ended; a stop sent then ends the
// queued job "stopped" (it never runs) and the running one
// "stopped_by_request" (the seed's worker loop and stop handling).
func TestHeroNotConcurrentAndStops(t *testing.T) {
	h := newHarness(t)
	c := h.client(t, 0)
	ctx := context.Background()
	marks := t.TempDir()
	heroJob(t, c, "solo", `touch `+marks+`/solo; while :; do sleep 0.05; done`, "concurrent", "false")
	heroJob(t, c, "next", `touch `+marks+`/next_ran`, "concurrent", "true")
	heroJob(t, c, "last", `echo last`, "concurrent", "true")
	heroPush(t, c, "last", "next", "solo") // LPUSH, taken from the left: solo first
	cfg := h.config()
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	waitFile(t, filepath.Join(marks, "solo"))
	if q := mustLRange(t, c, "hero:work_queue:w1"); len(q) != 2 {
		t.Fatalf("while a non-concurrent job runs the worker took more work: queue %v", q)
	}
	c.LPush(ctx, "hero:stop_queue:w1", "next")
	if rep, hj := heroAwait(t, c, "next"); rep != "error: stopped" || hj["error"] != "stopped" {
		t.Fatalf("next: reply %q, hash %v", rep, hj)
	}
	c.LPush(ctx, "hero:stop_queue:w1", "solo")
	if rep, hj := heroAwait(t, c, "solo"); rep != "error: stopped_by_request" || hj["error"] != "stopped_by_request" {
		t.Fatalf("solo: reply %q, hash %v", rep, hj)
	}
	if rep, hj := heroAwait(t, c, "last"); rep != "last\n" || hj["status"] != "finished" {
		t.Fatalf("last: reply %q, hash %v", rep, hj)
	}
	if _, err := os.Stat(filepath.Join(marks, "next_ran")); err == nil {
		t.Fatal("a job stopped while queued ran")
	}
}

// Jobs with concurrent=true run side by side: each waits for the other's
// mark, so they finish only if both run at once.
func TestHeroConcurrentJobsOverlap(t *testing.T) {
	_, c := heroHarness(t)
	m := t.TempDir()
	heroJob(t, c, "x", `touch `+m+`/x; while [ ! -e `+m+`/y ]; do sleep 0.05; done`, "concurrent", "true")
	heroJob(t, c, "y", `touch `+m+`/y; while [ ! -e `+m+`/x ]; do sleep 0.05; done`, "concurrent", "true")
	heroPush(t, c, "x", "y")
	for _, id := range []string{"x", "y"} {
		if _, hj := heroAwait(t, c, id); hj["status"] != "finished" {
			t.Fatalf("%s: hash %v", id, hj)
		}
	}
}
