package bridge

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// remoteDoneLoop turns each ended job that came from another agent into a
// result message, sent home at once and kept in the outbox until acked.
func (b *Bridge) remoteDoneLoop(ctx context.Context, ctxID uint64) {
	if _, err := b.st.Bus.Requeue(ctx, ctxID, store.RemoteDoneProcessingKey, store.RemoteDoneKey); err != nil {
		b.log.Warn("bridge: recover remote_done", "context", ctxID, "err", err)
	}
	take := b.taker(ctxID, store.RemoteDoneKey, store.RemoteDoneProcessingKey)
	for ctx.Err() == nil {
		key, err := take(ctx)
		if err != nil || key == "" {
			if err != nil && ctx.Err() == nil {
				sleep(ctx, time.Second)
			}
			continue
		}
		if err := b.queueResult(ctx, ctxID, key); err != nil {
			b.log.Warn("bridge: result", "context", ctxID, "job", key, "err", err)
			// A job that is gone has no result to send, and one whose hash
			// cannot be read never will (dead-lettered, with why); anything
			// else (the store failing) is tried again.
			switch {
			case errors.Is(err, store.ErrNotFound):
				_ = b.st.Bus.Done(ctx, ctxID, store.RemoteDoneProcessingKey, key)
			case errors.Is(err, model.ErrBadField):
				_ = b.st.Queues.PushDeadLetter(ctx, ctxID, store.DeadLetter{Key: key, Queue: store.RemoteDoneKey,
					Reason: "result not sent: " + err.Error()})
				_ = b.st.Bus.Done(ctx, ctxID, store.RemoteDoneProcessingKey, key)
			case ctx.Err() == nil:
				sleep(ctx, time.Second)
				_, _ = b.st.Bus.Requeue(ctx, ctxID, store.RemoteDoneProcessingKey, store.RemoteDoneKey)
			}
		}
	}
}

// queueResult creates the result message of ended job key and sends it:
// the job, its last log lines and a message id are read at once, and the
// message is written, put in the outbox and taken off
// remote_done:processing in one more round trip.
func (b *Bridge) queueResult(ctx context.Context, ctxID uint64, key string) error {
	if e := b.early.take(ctx, ctxID, key); e != nil {
		return b.recordEarly(ctx, ctxID, key, e)
	}
	var logs []string
	done := make(chan struct{})
	go func() { defer close(done); logs, _ = b.st.Logs.ReadLogs(ctx, ctxID, key, -ResultLogLines) }()
	ids, idErr := b.st.Jobs.NextIDs(ctx, ctxID, "message")
	j, err := b.st.Jobs.LoadJobKey(ctx, ctxID, key)
	<-done
	if err != nil {
		return err
	}
	if idErr != nil {
		return idErr
	}
	m := b.resultMessage(ctxID, ids[0], j)
	mk := store.MessageKey(m.CallerID, m.ID)
	o := j.Origin()
	b.acks.resultFor(o.Peer, o.Ref) // the result acknowledges the job
	out := store.Outgoing{Message: mk, Fields: m.ToHash(), Processing: store.RemoteDoneProcessingKey, Done: key}
	p := &payload{Ref: makeRef(ctxID, mk)}
	return b.launch(ctx, ctxID, mk, m, nil, out, b.resultOf(ctx, p, j, logs))
}

// ResultLogLines is how many of its last log lines a result carries; the
// origin keeps them as its job's log.
const ResultLogLines = 50

// lastLines is the last n of lines.
func lastLines(lines []string, n int) []string {
	return lines[max(len(lines)-n, 0):]
}

// resultPayload builds the payload of result message key from the job it
// reports, read again from the store (a resend).
func (b *Bridge) resultPayload(ctx context.Context, ctxID uint64, key string, m *model.Message) (*built, error) {
	j, err := b.st.Jobs.LoadJobKey(ctx, ctxID, m.Extra[model.ExtraResultOf])
	if err != nil {
		return nil, err
	}
	logs, _ := b.st.Logs.ReadLogs(ctx, ctxID, store.JobKey(j.CallerID, j.ID), -ResultLogLines)
	return b.resultOf(ctx, &payload{Ref: makeRef(ctxID, key)}, j, logs), nil
}

// resultOf fills result payload p from ended job j.
func (b *Bridge) resultOf(ctx context.Context, p *payload, j *model.RunnerJob, logs []string) *built {
	o := j.Origin()
	p.OriginCtx, p.OriginJob, p.Attempt = o.Context, o.Job, o.Attempt
	p.Status, p.Result, p.Error = string(j.Status), j.Result, j.Error
	p.Logs = logs
	p.TraceID = j.TraceID()
	b.filesOf(ctx, p, j) // files.go
	return &built{p, envelope.TypeResult, p.OriginCtx, p.Attempt}
}

// onResult writes a remote job's result, and the log lines it brings, onto
// the origin job (fenced on the attempt it belongs to) and settles the job
// message in the same step, then acknowledges:
// a duplicate at once, a new result a little later (pendingAcks), so the
// ack usually rides on the next message to that runner. Only the peer the
// job was sent to may answer it (docs/design.md, "Between agents").
func (b *Bridge) onResult(ctx context.Context, from peer.ID, p *payload) error {
	if _, _, err := store.ParseJobKey(p.OriginJob); err != nil {
		b.refused(from, "unexpected_result", err)
		return nil
	}
	dst, msgKey, err := b.sentTo(ctx, p.OriginCtx, p.OriginJob)
	if err != nil {
		return err
	}
	if dst == "" && b.sendUnrecorded(ctx, from, p) {
		return nil // no ack: the runner resends it, and it lands once the send is recorded
	}
	if dst == "" || dst != b.names.name(from) {
		// Not from the peer the job went to (it moved on, or a stranger,
		// or no such job): refused, changing nothing, but acknowledged so
		// a runner given up on stops resending. From the runner of an
		// attempt given up on as lost, it is kept (late.go).
		if b.lateResult(ctx, from, p) {
			b.reply(ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "")
			return nil
		}
		b.refused(from, "unexpected_result", nil)
		b.reply(ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "")
		return nil
	}
	if p.FilesList != "" && p.Files == "" {
		return b.listApart(from, p) // files_apart.go: fetched, then handled again
	}
	status := model.JobStatus(p.Status)
	if !status.Terminal() {
		status = model.JobError
	}
	res := p.Result
	if res == nil {
		res = map[string]string{}
	}
	fields := (&model.RunnerJob{Result: res}).ToHash()
	// The job message is settled in the same step (msgKey; "" when the
	// job has none), so nothing is left to do once its waiter wakes.
	home := model.Hash{"result": fields["result"], "error": p.Error, model.ExtraRanOn: b.names.name(from)}
	filesFields(home, p) // files.go
	err = b.completeHome(ctx, from, p, status, home, msgKey)
	switch {
	case errors.Is(err, store.ErrFenced), errors.Is(err, model.ErrBadTransition):
		if !b.lateResult(ctx, from, p) { // kept when the job was given up on as lost
			b.stats.add(b.stats.rejected, "late_result") // an old attempt, or a duplicate: answered at once
		}
		b.reply(ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "")
		return nil
	case err != nil:
		return err // no ack: the sender will resend
	}
	b.sent.forget(p.OriginCtx, p.OriginJob)
	b.log.Debug("bridge: result", "from", b.names.name(from), "context", p.OriginCtx, "job", p.OriginJob,
		"status", status, "trace_id", p.TraceID)
	b.cfg.Tracer.Begin(tracing.SpanResult, p.TraceID, p.OriginCtx, p.OriginJob).End(nil)
	b.reported(p.OriginCtx, p.OriginJob, p.Attempt) // no longer unknown, if it was
	b.resultOutcome(from, p)                        // a fault or a success for its circuit breaker
	// The ack rides on our next message to the runner, or goes on its own
	// after the ack delay (pendingAcks).
	ack := func() { b.reply(b.ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "") }
	b.acks.later(b.names.name(from), p.Ref, b.cfg.ackDelay(), func() { b.running(ack) })
	return nil
}

// sendUnrecorded reports whether result p from peer from is for an origin
// job here that has not ended, may go to from, and whose send is not
// recorded: an agent killed after it published a job message and before
// its write landed (sendWhileWriting) sends the job again at its restart,
// and the runner's result may come first. Acknowledged, it would be
// dropped there while the job waited here for good; left unacknowledged,
// it comes again and lands once the send is recorded.
func (b *Bridge) sendUnrecorded(ctx context.Context, from peer.ID, p *payload) bool {
	if has, err := b.hasContext(ctx, p.OriginCtx); err != nil || !has {
		return false
	}
	j, err := b.st.Jobs.LoadJobKey(ctx, p.OriginCtx, p.OriginJob)
	if err != nil || j.Status.Terminal() {
		return false
	}
	if r := j.Runner; r != "" && r != b.names.name(from) && r != from.String() && !strings.HasPrefix(r, "runner:") {
		return false // it goes elsewhere, or runs here
	}
	b.stats.add(b.stats.rejected, "result_before_send")
	b.log.Debug("bridge: a result for a job whose send is not recorded yet: not acknowledged",
		"from", b.names.name(from), "context", p.OriginCtx, "job", p.OriginJob)
	return true
}

// failSent ends origin job j, whose message will bring no result
// (refused, withdrawn, given up, overdue), with status error and reason,
// fenced on attempt (0: any), and forgets where it went. ended is false
// when the job had ended already or moved to another attempt: it is left
// as it is.
func (b *Bridge) failSent(ctx context.Context, ctxID uint64, j *model.RunnerJob, attempt int64, reason string) (ended bool, err error) {
	jk := store.JobKey(j.CallerID, j.ID)
	b.sent.forget(ctxID, jk)
	err = b.st.Jobs.CompleteJob(ctx, ctxID, jk, attempt, model.JobError, model.Hash{"error": reason})
	if errors.Is(err, store.ErrFenced) || errors.Is(err, model.ErrBadTransition) {
		return false, nil
	}
	return err == nil, err
}

// sentTo is the peer origin job jobKey went to and its message key ("" for
// both when it went nowhere, or there is no such job): from memory for
// jobs launch sent, else from the job and its message. With Plain.Caches
// always from Redis, once the write under way (if any) has ended.
func (b *Bridge) sentTo(ctx context.Context, ctxID uint64, jobKey string) (dst, msgKey string, err error) {
	if dst, msgKey, ok := b.sent.lookup(ctx, ctxID, jobKey); ok && !b.cfg.Plain.Caches {
		return dst, msgKey, nil
	}
	switch has, err := b.hasContext(ctx, ctxID); {
	case err != nil:
		return "", "", err
	case !has:
		return "", "", nil
	}
	s, err := b.st.Jobs.SentJobOf(ctx, ctxID, jobKey)
	return s.Dst, s.MessageKey, err
}
