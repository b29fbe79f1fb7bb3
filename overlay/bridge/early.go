package bridge

import (
	"context"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Early results. The runner tells the bridge of a job's end just before
// it writes it (executor.OnJobEnding, wired to JobEnding), with the job as
// it will be written and the tail of its log. For a job from another
// agent the bridge then builds the result from memory and publishes it at
// once, while the runner's write and the remote_done hand-off go on. The
// result message's record (hash, outbox entry) is written when
// remoteDoneLoop takes the job's remote_done entry, as for any result,
// from what was sent (recordEarly); answers that overtake it wait for it
// (sentJobs.writing). Nothing is lost on a crash: until that record is
// written, remote_done (or the job's lease, if the runner's write did not
// land either) still holds the job, and the result is built again from
// Redis and resent; the origin takes a result once.

// early is a result sent ahead of its record.
type early struct {
	ready  chan struct{} // closed once the fields below are set
	ok     bool          // the result went out: msgKey, msg and w are set
	msgKey string
	msg    *model.Message
	w      *sentJob
}

// earlyResults holds the results sent ahead of their records, by
// "<ctx>/<job key>"; at most maxSent (more go the usual way).
type earlyResults struct {
	mu sync.Mutex
	m  map[string]*early // guarded by mu
}

func newEarlyResults() *earlyResults { return &earlyResults{m: map[string]*early{}} }

// start makes job jobKey's entry; nil when one exists or memory is full.
func (r *earlyResults) start(ctxID uint64, jobKey string) *early {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := sentKey(ctxID, jobKey)
	if r.m[k] != nil || len(r.m) >= maxSent {
		return nil
	}
	e := &early{ready: make(chan struct{})}
	r.m[k] = e
	return e
}

// take removes job jobKey's entry and waits until it is ready; nil when
// there is none, or its result did not go out.
func (r *earlyResults) take(ctx context.Context, ctxID uint64, jobKey string) *early {
	r.mu.Lock()
	k := sentKey(ctxID, jobKey)
	e := r.m[k]
	delete(r.m, k)
	r.mu.Unlock()
	if e == nil {
		return nil
	}
	select {
	case <-e.ready:
	case <-ctx.Done():
		return nil
	}
	if !e.ok {
		return nil
	}
	return e
}

// drop removes job jobKey's entry without waiting for it.
func (r *earlyResults) drop(ctxID uint64, jobKey string) {
	r.mu.Lock()
	delete(r.m, sentKey(ctxID, jobKey))
	r.mu.Unlock()
}

// JobEnding is the runner's ending hook (executor.EndingHook): for a job
// that came from another agent it sends the result home at once. It
// returns at once; the work goes on in the background. With Plain.Early
// it does nothing: remoteDoneLoop builds every result from Redis.
func (b *Bridge) JobEnding(ctxID uint64, job *model.RunnerJob, logs []string) func(ok bool) {
	if b.cfg.Plain.Early {
		return nil
	}
	dst, err := b.names.decode(job.Origin().Peer)
	if err != nil || dst == b.self || !job.Status.Terminal() {
		return nil // not a remote job (or a strange one): remote_done has it
	}
	jk := store.JobKey(job.CallerID, job.ID)
	e := b.early.start(ctxID, jk)
	if e == nil {
		return nil
	}
	if !b.goIfRunning(func() { b.sendEarly(ctxID, dst, job, logs, e) }) {
		b.early.drop(ctxID, jk) // shutting down: remote_done has it
		return nil
	}
	return func(ok bool) {
		if !ok { // the job did not end as told: no remote_done entry will come
			b.goIfRunning(func() {
				if e := b.early.take(b.ctx, ctxID, jk); e != nil {
					b.sent.written(e.w, false)
				}
			})
		}
	}
}

// sendEarly builds job's result message from memory and publishes it.
func (b *Bridge) sendEarly(ctxID uint64, dst peer.ID, job *model.RunnerJob, logs []string, e *early) {
	ready := sync.OnceFunc(func() { close(e.ready) })
	defer ready()
	ids, err := b.st.Jobs.NextIDs(b.ctx, ctxID, "message")
	if err != nil {
		return // remote_done's way then
	}
	m := b.resultMessage(ctxID, ids[0], job)
	mk := store.MessageKey(m.CallerID, m.ID)
	w := b.sent.writing(ctxID, mk)
	if w == nil {
		return
	}
	logs = lastLines(logs, ResultLogLines)
	e.ok, e.msgKey, e.msg, e.w = true, mk, m, w
	ready() // the record may be written while the result is sent
	// The result acknowledges the job.
	b.acks.resultFor(b.names.name(dst), job.Origin().Ref)
	pre := b.resultOf(b.ctx, &payload{Ref: makeRef(ctxID, mk)}, job, logs)
	// Sent from this goroutine: the outbox cannot resend it before its
	// record exists (recordEarly), so nothing else sends it meanwhile.
	if err := b.deliver(b.ctx, dst, pre.typ, pre.target, pre.attempt, pre.p); err != nil && b.ctx.Err() == nil {
		b.log.Debug("bridge: early result", "context", ctxID, "key", mk, "err", err)
	}
}

// recordEarly writes the record of a result that was sent ahead, and
// takes job key off remote_done:processing, in one round trip.
func (b *Bridge) recordEarly(ctx context.Context, ctxID uint64, key string, e *early) error {
	o := store.Outgoing{Message: e.msgKey, Fields: e.msg.ToHash(), Processing: store.RemoteDoneProcessingKey, Done: key}
	_, err := b.record(ctx, ctxID, e.msg, nil, o, 0)
	b.sent.written(e.w, err == nil)
	return err
}

// resultMessage builds the result message (id id) of ended job j.
func (b *Bridge) resultMessage(ctxID, id uint64, j *model.RunnerJob) *model.Message {
	now := time.Now().Unix()
	return &model.Message{ID: id, CallerID: j.CallerID, ContextID: ctxID, MessageType: model.MsgTypeResult,
		Status: model.MsgDispatched, Dst: j.Origin().Peer, Timeout: int64(b.cfg.Timeout / time.Second),
		CreatedAt: now, UpdatedAt: now, Extra: model.Hash{model.ExtraResultOf: store.JobKey(j.CallerID, j.ID)}}
}
