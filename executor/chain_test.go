package executor_test

import (
	"context"
	"testing"
)

// A finished job claims the next one of its context with its completion
// only while no other context waits: a job pushed to a second context
// runs long before a backlog of the first one is through.
func TestChainingYieldsToOtherContexts(t *testing.T) {
	const backlog = 200
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 1
	cfg.Contexts = fixedContexts(1, 2)
	h.start(t, cfg)
	c1, c2 := h.client(t, 1), h.client(t, 2)
	keys := make([]string, backlog)
	for i := range keys {
		keys[i] = submit(t, c1, 1, i+1, "sh", "true")
	}
	waitEnd(t, c1, keys[0])
	other := submit(t, c2, 1, 1, "sh", "true")
	if got := waitEnd(t, c2, other); got["status"] != "finished" {
		t.Fatalf("%s: %v", other, got)
	}
	last, err := c1.HGet(context.Background(), keys[backlog-1], "status").Result()
	if err != nil {
		t.Fatal(err)
	}
	if last == "finished" || last == "error" {
		t.Fatalf("context 2's job ended only after context 1's backlog of %d", backlog)
	}
	for _, k := range keys {
		if got := waitEnd(t, c1, k); got["status"] != "finished" {
			t.Fatalf("%s: %v", k, got)
		}
	}
}

// Chaining yields to the hero loop too: a hero job waiting for a slot gets
// one long before a context's backlog is through.
func TestChainingYieldsToHeroJobs(t *testing.T) {
	const backlog = 200
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 1
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	c1, c0 := h.client(t, 1), h.client(t, 0)
	ctx := context.Background()
	keys := make([]string, backlog)
	for i := range keys {
		keys[i] = submit(t, c1, 1, i+1, "sh", "true")
	}
	waitEnd(t, c1, keys[0])
	if err := c0.HSet(ctx, "hero:job:h1", "id", "h1", "script", "true", "script_type", "sh").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c0.LPush(ctx, "hero:work_queue:w1", "h1").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c0.BLPop(ctx, waitLimit, "hero:reply:h1").Err(); err != nil {
		t.Fatal(err)
	}
	last, err := c1.HGet(ctx, keys[backlog-1], "status").Result()
	if err != nil {
		t.Fatal(err)
	}
	if last == "finished" || last == "error" {
		t.Fatalf("the hero job ended only after context 1's backlog of %d", backlog)
	}
	for _, k := range keys {
		waitEnd(t, c1, k)
	}
}
