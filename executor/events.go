package executor

import (
	"context"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
)

// enableEvents turns on (or re-checks) the keyspace notifications the
// dequeue loops wake on; without them the loops poll faster.
func (r *Runner) enableEvents(ctx context.Context) {
	on, err := r.st.Queues.EnableQueueEvents(ctx)
	was := r.events.Swap(on)
	first := r.eventsChecked.CompareAndSwap(false, true)
	switch {
	case on && (first || !was):
		r.log.Info("executor: waking on keyspace notifications")
	case !on && (first || was):
		r.log.Warn("executor: keyspace notifications unavailable; polling queues",
			"every", r.pollEvery(), "err", err)
	}
}

// watchEvents holds the runner's one pub/sub connection: queue pushes wake
// the context's dequeue loop (or the sweeper, for a type nobody serves
// here), stop requests kill the job if it runs here.
func (r *Runner) watchEvents(ctx context.Context) {
	for ctx.Err() == nil {
		sub, err := r.st.Queues.SubscribeRunnerEvents(ctx, r.onEvent)
		if err != nil {
			r.log.Warn("executor: subscribe to events", "err", err)
			sleepCtx(ctx, time.Second)
			continue
		}
		<-ctx.Done()
		sub.Close()
	}
}

// onEvent runs on the subscription's reader goroutine: it only signals.
func (r *Runner) onEvent(ev store.RunnerEvent) {
	switch {
	case ev.Stop:
		r.stopLocal(ev.DB, ev.JobKey, ev.Attempt)
	case r.hasType(ev.ScriptType):
		r.pushed(ev.DB, ev.ScriptType)
	case r.serves(ev.DB):
		r.requestSweep(ev.DB, ev.ScriptType)
	}
}

func (r *Runner) hasType(t string) bool { _, ok := r.types[t]; return ok }

func (r *Runner) serves(id uint64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.contexts[id] != nil
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
