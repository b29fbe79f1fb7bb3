package bridge

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// External workers (seed 000 §4–5, seed 001 Runner.local; docs/design.md, "How Hyphae reads the specifications it follows"). A
// runner record with local: true declares a worker on this agent's Redis
// that is not this agent's runner: it BRPOPs queue:<type>, HSETs the job
// started, runs it and HSETs its result and final status, and may push a
// result message on msg_out. For a job that came from another agent the
// result must still go home:
//
//   - a received job of a type this agent does not run but such a record
//     declares is watched (store.WatchExternal) as it is materialised;
//     externalLoop looks at the watched jobs every externalEvery and hands
//     the ended ones to remote_done (store.EndExternal), from where the
//     result goes home as any other. The watch list is in Redis, so a job
//     ended while the agent was down goes home when it is back. A poll, not
//     keyspace notifications: an HSET event for every job hash would cost
//     every job of every context a message, for the few that are watched.
//   - a result message on msg_out (message_type result, job = the one job
//     it reports, with its final status and result) ends that job if it
//     has not ended yet and hands it to remote_done the same way
//     (takeResult); the message ends processed. For a job a client
//     queued here itself, home is here: the message goes on msg_in.
//
// Either way a job's end goes home once (store.ExtraSentHome).

// externalEvery is how often the watched jobs are looked at.
const externalEvery = time.Second

// externalBatch bounds the watched jobs looked at per context and pass.
const externalBatch = 1000

// externalHere reports whether a job of script type typ in context ctxID
// waits for an external worker here: this agent's runner does not run
// typ, and a runner record of the context with local: true declares it.
func (b *Bridge) externalHere(ctx context.Context, ctxID uint64, typ string) bool {
	if b.cfg.LocalTypes != nil && slices.Contains(b.cfg.LocalTypes(), typ) {
		return false
	}
	for _, fresh := range []bool{false, true} { // a record made since the cached list counts
		rs, err := b.runners.of(ctx, b.st.Registry, ctxID, fresh)
		if err == nil && store.DeclaresExternal(rs, typ) {
			return true
		}
	}
	return false
}

// watchExternal watches received job key (of type typ) when an external
// worker is to run it. A resend of the job watches it again (idempotent),
// so a crash between the job's write and this one loses nothing the
// origin does not resend.
func (b *Bridge) watchExternal(ctx context.Context, target uint64, key, typ string) {
	if !b.externalHere(ctx, target, typ) {
		return
	}
	if err := b.st.Jobs.WatchExternal(ctx, target, key); err != nil {
		b.log.Warn("bridge: watch job for its external worker", "context", target, "job", key, "err", err)
	}
}

// externalLoop sends home, every externalEvery, the watched jobs that
// their external workers ended; a context with none watched is looked at
// again when one is (external_idle.go), and when every context has none
// the loop sleeps until then. Until the bridge has listed its contexts
// (an agent with none yet) it looks every externalEvery, in memory.
func (b *Bridge) externalLoop() {
	idle := newExternalIdle(b.watch())
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-t.C:
		case <-idle.kick:
			t.Stop()
		}
		listed := b.contextIDs()
		ids := idle.contexts(listed)
		for _, id := range ids {
			now := time.Now()
			if ok, seen := idle.look(id, now); ok && b.sendExternalHome(b.ctx, id) && idle.on {
				b.noneWatched(id, now, seen, idle)
			}
		}
		t.Reset(idle.wait(ids, len(listed) > 0, time.Now()))
	}
}

// noneWatched notes context ctxID's set of watched jobs as empty when it is.
func (b *Bridge) noneWatched(ctxID uint64, now time.Time, seen [2]uint64, idle *externalIdle) {
	if _, any, err := b.st.Bus.(keyWatcher).Earliest(b.ctx, ctxID, store.ExternalJobsKey); err == nil && !any {
		idle.found(ctxID, now, seen)
	}
}

// sendExternalHome hands context ctxID's ended watched jobs to remote_done;
// it reports whether it read the set and found none ended.
func (b *Bridge) sendExternalHome(ctx context.Context, ctxID uint64) bool {
	keys, err := b.st.Jobs.ExternalEnded(ctx, ctxID, externalBatch)
	if err != nil {
		if ctx.Err() == nil {
			b.log.Warn("bridge: watched jobs", "context", ctxID, "err", err)
		}
		return false
	}
	for _, k := range keys {
		out, err := b.st.Jobs.EndExternal(ctx, ctxID, k, "", nil)
		switch {
		case errors.Is(err, store.ErrNotFound): // gone (pruned): no longer watched
		case err != nil:
			b.log.Warn("bridge: job ended by its external worker", "context", ctxID, "job", k, "err", err)
		case out == store.ExternalSent:
			b.log.Info("bridge: job ended by its external worker goes home", "context", ctxID, "job", k)
		}
	}
	return len(keys) == 0
}

// takeResult handles result message key, taken from context ctxID's
// msg_out: an external worker reports the end of the job it was given
// (the message's one job, by caller_id and id, with its final status and
// result). The job ends so (unless it has ended already) and its result
// goes home; the message ends processed. For a job that came from no
// other agent, home is here (resultHere). A message that names no such
// job is a bad message.
func (b *Bridge) takeResult(ctx context.Context, ctxID uint64, key string, m *model.Message) error {
	if len(m.Job) != 1 || m.Job[0].ID == 0 {
		return bad("a result message carries the one job it reports (caller_id, id, status, result)")
	}
	src := m.Job[0]
	jk := store.JobKey(cmp.Or(src.CallerID, m.CallerID), src.ID)
	var fields model.Hash
	if src.Status != "" && !src.Status.Terminal() {
		return bad("result for %s: status %q is not final (finished or error)", jk, src.Status)
	}
	if src.Status.Terminal() {
		fields = model.Hash{}
		if len(src.Result) > 0 {
			fields["result"] = (&model.RunnerJob{Result: src.Result}).ToHash()["result"]
		}
		if src.Error != "" {
			fields["error"] = src.Error
		}
	}
	out, err := b.st.Jobs.EndExternal(ctx, ctxID, jk, src.Status, fields)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return bad("result for %s: no such job in context %d", jk, ctxID)
	case errors.Is(err, store.ErrNotRemote):
		return b.resultHere(ctx, ctxID, key, jk, src.Status, fields)
	case errors.Is(err, model.ErrBadTransition):
		return bad("result for %s: %v", jk, err)
	case err != nil:
		return err
	case out == store.ExternalRunning:
		return bad("result for %s: the job has not ended and the message gives no final status", jk)
	}
	if err := b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgProcessed,
		model.Hash{model.ExtraResultOf: jk}); err != nil && !errors.Is(err, model.ErrBadTransition) {
		return err
	}
	return b.st.Bus.Done(ctx, ctxID, store.MsgOutProcessingKey, key)
}

// resultHere handles a result message for job jk of this context that
// came from no other agent (a client queued it here): its home is here.
// The job ends with the message's status and result unless it has ended
// already, and the message moves from msg_out to msg_in, where the actor
// RPOPs it, processed.
func (b *Bridge) resultHere(ctx context.Context, ctxID uint64, key, jk string, status model.JobStatus,
	fields model.Hash) error {
	if status.Terminal() {
		err := b.st.Jobs.CompleteJob(ctx, ctxID, jk, 0, status, fields)
		if err != nil && !errors.Is(err, model.ErrBadTransition) {
			return err
		}
	}
	return b.st.Jobs.ResultHere(ctx, ctxID, key)
}
