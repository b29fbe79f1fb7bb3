package executor_test

import (
	"context"
	"testing"
)

// A job waiting for its dependends (parked off its queue by the claim) is
// stopped like a queued one: it ends "error: stopped" at once, and a job
// waiting for it ends error in turn, as its upstream can never finish.
func TestStopWaitingJob(t *testing.T) {
	h := newHarness(t)
	r := h.start(t, h.config())
	c := h.client(t, 1)
	ctx := context.Background()
	waiting := submit(t, c, 1, 2, "sh", `true`, "dependends", "[1]") // job 1 does not exist yet
	after := submit(t, c, 1, 3, "sh", `true`, "dependends", "[2]")
	for _, k := range []string{waiting, after} {
		waitFor(t, k+" to wait", func() bool { return c.HGet(ctx, k, "status").Val() == "waiting_for_prerequisites" })
	}
	if err := r.Stop(ctx, 1, waiting); err != nil {
		t.Fatal(err)
	}
	if got := c.HGetAll(ctx, waiting).Val(); got["status"] != "error" || got["error"] != "stopped" {
		t.Fatalf("waiting job right after Stop: %v", got)
	}
	if got := waitEnd(t, c, after); got["status"] != "error" || got["error"] != "impossible: job 2 ended error" {
		t.Fatalf("job waiting for the stopped one: %v", got)
	}
}
