package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// launch puts a message on its way for the first time. The caller holds
// the message (and the job it carries, for a job message) in memory, so
// nothing is read back: the envelope is sealed from memory (pre, or built
// by fresh) and published while the message is recorded with o in one
// round trip (see sendWhileWriting).
// Retransmissions go through sendOne, which reads the message from Redis.
//
// o.Message must be key; o.Fields may already hold the whole message hash
// (a new message) or just the fields the caller changed.
func (b *Bridge) launch(ctx context.Context, ctxID uint64, key string, m *model.Message,
	job *model.RunnerJob, o store.Outgoing, pre *built) error {
	dst, err := b.plan(ctx, ctxID, m, job, &o, 0)
	if err != nil {
		return err // nothing written: the caller refuses the message
	}
	if pre == nil && dst != "" {
		pre = fresh(ctxID, key, m, job) // nil: not a kind fresh builds, the outbox sends it
		b.inputsOut(ctx, pre)           // a long inputs list goes apart (files_apart_inputs.go)
	}
	if dst == "" || pre == nil {
		return b.st.Bus.Dispatch(ctx, ctxID, o)
	}
	return b.sendWhileWriting(ctx, ctxID, key, dst, pre, o, b.remember(ctxID, key, m, job, dst))
}

// remember notes that message key is being written while it is sent and,
// for a job message, the peer its job went to (see sentJobs).
func (b *Bridge) remember(ctxID uint64, key string, m *model.Message, job *model.RunnerJob, dst peer.ID) *sentJob {
	if m.MessageType == model.MsgTypeJob && job != nil {
		return b.sent.add(ctxID, store.JobKey(job.CallerID, job.ID), key, b.names.name(dst))
	}
	return b.sent.writing(ctxID, key)
}

// sendWhileWriting publishes pre to dst while o is written, and returns
// the write's error. Sending first loses nothing: until o is written the
// message's source still holds it (msg_out:processing, remote_done:
// processing, or the caller of Submit, who gets the error), and a second
// send is deduplicated by its recipient. Answers that overtake the write
// wait for it (w; nil when memory is full: then the write goes first, as
// it always does with Plain.Overlap).
//
// To a peer this agent is connected to, the caller's goroutine seals and
// publishes while a new one writes: the write only waits on Redis, and the
// send, on the critical path of the round trip, does not wait for the new
// goroutine to get a CPU. A peer not connected
// may take seconds to route to: that send goes to the background.
func (b *Bridge) sendWhileWriting(ctx context.Context, ctxID uint64, key string, dst peer.ID, pre *built,
	o store.Outgoing, w *sentJob) error {
	send := func() error { return b.deliver(b.ctx, dst, pre.typ, pre.target, pre.attempt, pre.p) }
	if w == nil || b.cfg.Plain.Overlap {
		return b.writeThenSend(ctx, ctxID, key, dst, o, w, send)
	}
	var err error
	if b.tr.Connected(dst) {
		written := make(chan error, 1)
		go func() { written <- b.st.Bus.Dispatch(ctx, ctxID, o) }()
		b.inPlace(ctxID, key, send)
		err = <-written
	} else {
		b.inBackground(ctxID, key, send)
		err = b.st.Bus.Dispatch(ctx, ctxID, o)
	}
	b.sent.written(w, err == nil)
	return err
}

// writeThenSend is the plain order (and the one when memory is full, w
// nil): o is written, then the message sent, in place to a connected peer
// as sendWhileWriting does, else in the background.
func (b *Bridge) writeThenSend(ctx context.Context, ctxID uint64, key string, dst peer.ID, o store.Outgoing,
	w *sentJob, send func() error) error {
	err := b.st.Bus.Dispatch(ctx, ctxID, o)
	b.sent.written(w, err == nil)
	if err != nil {
		return err
	}
	if w != nil && b.tr.Connected(dst) {
		b.inPlace(ctxID, key, send)
	} else {
		b.inBackground(ctxID, key, send)
	}
	return nil
}

// record plans one send of m (plan) and writes it with o in one round
// trip; it returns plan's recipient. A plan that refuses the message
// writes nothing.
func (b *Bridge) record(ctx context.Context, ctxID uint64, m *model.Message, job *model.RunnerJob,
	o store.Outgoing, sends int) (peer.ID, error) {
	dst, err := b.plan(ctx, ctxID, m, job, &o, sends)
	if err != nil {
		return "", err
	}
	return dst, b.st.Bus.Dispatch(ctx, ctxID, o)
}

// plan fills o for one send of m — its sends count (sends before this one
// + 1), dst, the job's runner and the outbox entry — and returns the
// recipient: "" when none can take the message yet (the reason goes on
// the message, and the outbox tries again in a second). An error (wrapping
// ErrNoRunner) means no one ever can: o is left for the caller to drop.
func (b *Bridge) plan(ctx context.Context, ctxID uint64, m *model.Message, job *model.RunnerJob,
	o *store.Outgoing, sends int) (peer.ID, error) {
	if o.Fields == nil {
		o.Fields = model.Hash{}
	}
	dst, why, err := b.destination(ctx, ctxID, m)
	if err != nil {
		return "", err
	}
	if dst != "" && why == "" {
		if why, err = b.admit(m, dst, sends); err != nil { // its circuit breaker (breaker_route.go)
			return "", err
		}
	}
	if dst == "" || why != "" {
		o.Fields["error"] = why
		o.Next = time.Now().Add(time.Second)
		return "", nil
	}
	name := b.names.name(dst)
	o.Fields[model.ExtraSends], o.Fields["dst"], o.Fields["error"] = strconv.Itoa(sends+1), name, ""
	o.Next = time.Now().Add(b.untilExpiry(m, b.backoff(m, sends)))
	if job == nil {
		return dst, nil
	}
	jk := store.JobKey(job.CallerID, job.ID)
	b.sent.moved(ctxID, jk, name) // only dst's answers count (onResult)
	b.log.Debug("bridge: sending job", "to", name, "context", ctxID, "job", jk, "send", sends+1, "trace_id", job.TraceID())
	b.cfg.Tracer.Begin(tracing.SpanSend, job.TraceID(), ctxID, jk).End(nil)
	if job.Runner != name && !strings.HasPrefix(job.Runner, "runner:") {
		job.Runner = name // record where the job went
		if o.JobFields == nil {
			o.Job, o.JobFields = jk, model.Hash{}
		}
		o.JobFields["runner"] = job.Runner
	}
	return dst, nil
}

// built is a payload ready to seal, with its envelope's type, target
// context and attempt.
type built struct {
	p       *payload
	typ     envelope.Type
	target  uint64
	attempt int64
}

// fresh builds the payload of a message from memory; nil for kinds it
// does not handle (a result's payload comes from its job: resultOf).
func fresh(ctxID uint64, key string, m *model.Message, job *model.RunnerJob) *built {
	p := &payload{Ref: makeRef(ctxID, key)}
	switch m.MessageType {
	case model.MsgTypeJob:
		if job == nil {
			return nil
		}
		p.OriginCtx, p.OriginJob, p.Attempt = ctxID, store.JobKey(job.CallerID, job.ID), job.Attempt
		p.Message, p.Job = withoutJobs(m), job.ToHash()
		return &built{p, envelope.TypeJob, m.ContextID, job.Attempt}
	case model.MsgTypeStop:
		p.OriginCtx, p.OriginJob = ctxID, m.Extra[model.ExtraOriginJob]
		return &built{p, envelope.TypeStop, m.ContextID, 0}
	case model.MsgTypeChat, model.MsgTypeMail, model.MsgTypeEvent: // an event travels as mail (event.go)
		p.Message = m.ToHash()
		t := envelope.TypeChat
		if m.MessageType != model.MsgTypeChat {
			t = envelope.TypeMail
		}
		return &built{p, t, m.ContextID, 0}
	}
	return nil
}

// withoutJobs is m's hash without its job list: a job message's payload
// carries its one job apart (payload.Job), so the list is not encoded
// only to be dropped.
func withoutJobs(m *model.Message) model.Hash {
	bare := *m
	bare.Job = nil
	h := bare.ToHash()
	delete(h, "job")
	return h
}

// Submit sends new job j (status dispatched, attempt 1) from local
// context origin to context target of another agent (dst; empty = route by
// the job's runner or type): it saves the job and its message and sends it
// at once, in one round trip (ids come from reserved blocks). It fills in
// j's id. With watch, it returns a watch on the job's end, opened before
// the job can end (the caller closes it); else nil. A job routed by type
// that no runner registered in context origin, nor this agent, runs is
// refused with an error wrapping ErrNoRunner, and nothing is saved.
func (b *Bridge) Submit(ctx context.Context, origin, target uint64, dst string, j *model.RunnerJob,
	timeout time.Duration, watch bool) (*store.EndWatch, error) {
	ids, err := b.st.Jobs.NextIDs(ctx, origin, "job", "message")
	if err != nil {
		return nil, err
	}
	j.ID, j.ContextID = ids[0], origin
	m := &model.Message{ID: ids[1], CallerID: j.CallerID, ContextID: target, MessageType: model.MsgTypeJob,
		Status: model.MsgDispatched, Dst: dst, Timeout: int64(timeout / time.Second)}
	key := store.MessageKey(m.CallerID, m.ID)
	j.SetMessageKey(key)
	now := time.Now().Unix()
	j.CreatedAt, j.UpdatedAt, m.CreatedAt, m.UpdatedAt = now, now, now, now
	m.Job = []*model.RunnerJob{j}
	m.SetTraceID(j.TraceID())
	jk := store.JobKey(j.CallerID, j.ID)
	var w *store.EndWatch
	if watch && !b.cfg.Plain.Caches { // plain: the caller waits on reply:<job>
		w = b.st.Jobs.WatchEnd(origin, jk)
	}
	if b.cfg.Plain.Submit {
		err = b.submitPlain(ctx, origin, m, j)
	} else {
		o := store.Outgoing{Message: key, Fields: m.ToHash(), Job: jk, JobFields: j.ToHash()}
		err = b.launch(ctx, origin, key, m, j, o, nil)
	}
	if err != nil {
		if w != nil {
			w.Close()
		}
		return nil, err
	}
	return w, nil
}

// submitPlain is Submit's plain path (Plain.Submit), as a client that
// writes its own job would take it: the job is saved, then its message
// goes on msg_out, and msgOutLoop sends it (launchTaken: originJob finds
// the job). The job exists when Submit returns, as on the short path, so
// the caller can load or wait for it at once. A job that can go nowhere
// is refused first, as launch would refuse it, and nothing is saved; a
// message that cannot be pushed ends its job with the error.
func (b *Bridge) submitPlain(ctx context.Context, origin uint64, m *model.Message, j *model.RunnerJob) error {
	dst, _, err := b.destination(ctx, origin, m)
	if err != nil {
		return err
	}
	if dst != "" { // a peer whose circuit breaker refuses it: refused as launch would
		if _, err := b.gate(m, dst, 0, false); err != nil {
			return err
		}
	}
	if err := b.st.Jobs.SaveJob(ctx, j); err != nil {
		return err
	}
	if err := b.st.Bus.PushMessage(ctx, origin, m, store.MsgOutKey); err != nil {
		_, _ = b.failSent(ctx, origin, j, j.Attempt, "not sent: "+err.Error())
		return err
	}
	return nil
}

// launchTaken sends a message taken from msg_out (now on
// msg_out:processing): prepare checks it and, for a job, finds or creates
// its origin job; launch records both and moves the key from the
// processing list to the outbox in the same round trip.
func (b *Bridge) launchTaken(ctx context.Context, ctxID uint64, key string) error {
	m, err := b.st.Bus.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		return err
	}
	o := store.Outgoing{Message: key, Fields: model.Hash{"status": string(model.MsgDispatched)},
		Processing: store.MsgOutProcessingKey, Done: key}
	if m.MessageType == model.MsgTypeResult { // an external worker's report (external.go)
		return b.takeResult(ctx, ctxID, key, m)
	}
	if done, err := b.takeEvent(ctx, ctxID, key, m); done { // event.go
		return err
	}
	if m.CreatedAt <= 0 {
		// A plain client's message may lack created_at; its timeout then
		// counts from now (expired() needs a start, or it never gives up).
		m.CreatedAt = time.Now().Unix()
		o.Fields["created_at"] = strconv.FormatInt(m.CreatedAt, 10)
	}
	if why := b.cancelledFlowJob(ctx, ctxID, m); why != "" {
		if err := b.withdraw(ctx, ctxID, key, m, why); err != nil {
			return err
		}
		return b.st.Bus.Done(ctx, ctxID, store.MsgOutProcessingKey, key)
	}
	if done, err := b.queueFlowJobHere(ctx, ctxID, key, m); done { // local_flow.go
		return err
	}
	job, existed, err := b.prepare(ctx, ctxID, key, m, &o)
	if err != nil {
		return err
	}
	err = b.launch(ctx, ctxID, key, m, job, o, nil)
	if errors.Is(err, ErrNoRunner) {
		// Nothing was written; a job stored already (a flow's) ends with
		// the reason, as the message does (takeOne: a bad message).
		if existed {
			if _, ferr := b.failSent(ctx, ctxID, job, job.Attempt, err.Error()); ferr != nil {
				return ferr
			}
		}
		return badMessage{err}
	}
	return err
}

// badMessage marks why a msg_out entry cannot be sent as it is (as
// opposed to the store failing while sending it).
type badMessage struct{ error }

// Unwrap lets errors.Is see the cause: a job refused for want of a
// runner (ErrNoRunner, an open breaker) is no poison for quarantined.
func (e badMessage) Unwrap() error { return e.error }

func bad(format string, args ...any) error { return badMessage{fmt.Errorf(format, args...)} }

func isBad(err error) bool {
	var b badMessage
	return errors.As(err, &b)
}
