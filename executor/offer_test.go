package executor_test

import (
	"context"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// A claim made for the runner through Offer runs the job, as if the
// context's loop had claimed it; the offer holds a slot until handed over
// (so with one slot a second offer is declined and the loop cannot claim
// meanwhile); offers for unserved contexts and after Shutdown are
// declined; a claim that found nothing frees the slot.
func TestOfferedClaimRunsTheJob(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.Concurrency = 1
	r := h.start(t, cfg)
	c := h.client(t, 1)
	ctx := context.Background()
	if _, _, ok := r.Offer(7); ok {
		t.Fatal("offer for a context the runner does not serve")
	}
	var spec store.ClaimSpec
	var hand func(*store.Claim)
	waitFor(t, "an offer for context 1", func() bool {
		var ok bool
		spec, hand, ok = r.Offer(1)
		return ok
	})
	if _, _, ok := r.Offer(1); ok {
		t.Fatal("a second offer with the only slot taken")
	}
	key := submit(t, c, 1, 1, "sh", "echo offered")
	cl, err := h.st.Queues.ClaimJob(ctx, 1, spec.RunnerID, spec.Types, spec.Lease, false)
	if err != nil || cl == nil || cl.JobKey != key {
		t.Fatalf("claim %+v %v: want %s (the loop must not have taken it)", cl, err, key)
	}
	hand(cl)
	if got := waitEnd(t, c, key); got["status"] != "finished" {
		t.Fatalf("offered job: %v", got)
	}

	// A claim that found nothing gives the slot back: the next job runs.
	waitFor(t, "another offer", func() bool {
		var ok bool
		_, hand, ok = r.Offer(1)
		return ok
	})
	hand(nil)
	if got := waitEnd(t, c, submit(t, c, 1, 2, "sh", "echo after")); got["status"] != "finished" {
		t.Fatalf("job after an empty offer: %v", got)
	}

	if err := r.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := r.Offer(1); ok {
		t.Fatal("offer after Shutdown")
	}
}
