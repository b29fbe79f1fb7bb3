package executor_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// A context created while a periodic refresh is between listing the
// contexts and applying that list is served all the same: the refresh
// asked for on creation is folded into the one under way, which lists
// again, instead of the two applying in the wrong order (the older list
// last) and stopping the new context's loop until the next period.
func TestContextCreatedDuringARefreshIsServed(t *testing.T) {
	h := newHarness(t)
	cfg := h.config()
	cfg.ContextRefresh = time.Hour // only the refreshes this test asks for
	var (
		listed  = &atomic.Pointer[[]uint64]{}
		calls   atomic.Int32
		entered = make(chan struct{})
		gate    = make(chan struct{})
	)
	listed.Store(&[]uint64{1})
	cfg.Contexts = func(context.Context) ([]uint64, error) {
		ids := *listed.Load()  // the contexts as they are when the listing starts
		if calls.Add(1) == 2 { // the first refresh after Start: held between list and apply
			close(entered)
			<-gate
		}
		return ids, nil
	}
	r := h.start(t, cfg)
	slow := make(chan struct{})
	go func() {
		defer close(slow)
		r.Refresh()
	}()
	<-entered
	listed.Store(&[]uint64{1, 2}) // context 2 is created, and a refresh asked for
	r.Refresh()
	close(gate) // the slow refresh applies what it listed before context 2 existed
	<-slow
	c := h.client(t, 2)
	if got := waitEnd(t, c, submit(t, c, 1, 1, "sh", "true")); got["status"] != "finished" {
		t.Fatalf("job in the new context: %v", got)
	}
}
