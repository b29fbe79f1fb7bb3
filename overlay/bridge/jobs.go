package bridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/internal/tracing"
)

// onJob authorises a job from another agent and materialises it in the
// target context, or refuses it saying why (writing nothing there).
func (b *Bridge) onJob(ctx context.Context, from peer.ID, target uint64, p *payload) error {
	refuseAs := func(counted, format string, args ...any) error {
		reason := fmt.Sprintf(format, args...)
		b.refused(from, counted, nil)
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, reason)
		return nil
	}
	refuse := func(format string, args ...any) error { return refuseAs("unauthorized", format, args...) }
	if err := b.st.Registry.CheckContextID(target); err != nil {
		return refuse("context %d: %v", target, err)
	}
	switch ok, err := b.hasContext(ctx, target); {
	case err != nil:
		return err // store trouble: no reply, the sender will resend
	case !ok:
		return refuse("refused by %s: context %d does not exist there%s", b.self, target, createHint(target))
	}
	sender := b.names.name(from)
	caller, cached, err := b.actorOf(ctx, sender)
	if err != nil {
		if errors.Is(err, store.ErrDenied) {
			return refuse("refused by %s: %v%s", b.self, err, grantHint(target, sender, err))
		}
		return err // store trouble: no reply, the sender will resend
	}
	if p.InputsList != "" {
		return b.inputsApart(ctx, from, target, p, refuse) // files_apart_inputs.go: fetched, then handled again
	}
	src, err := model.JobFromHash("job from "+sender, p.Job)
	if err != nil || src.Script == "" || src.ScriptType == "" || p.Ref == "" || p.OriginJob == "" {
		return refuseAs(reasonMalformedJob, "malformed job: %v", errOr(err, "script, script_type, ref and origin_job are required"))
	}
	span := b.cfg.Tracer.Begin(tracing.SpanReceive, src.TraceID(), target, p.OriginJob)
	j, key, created, err := b.accept(ctx, sender, target, p, src, caller, cached)
	span.End(err)
	if errors.Is(err, store.ErrDenied) {
		return refuse("refused by %s: %v%s", b.self, err, grantHint(target, sender, err))
	}
	if err != nil {
		return err
	}
	b.watchExternal(ctx, target, key, j.ScriptType) // a job for an external worker (external.go)
	ack := func() { b.reply(b.ctx, from, envelope.TypeAck, target, p.Ref, "") }
	// Logged for a resend too (again=true): the first copy may have been
	// stored by a call that then failed before it could say so.
	b.log.Info("bridge: accepted job", "from", sender, "context", target, "job", key, "type", j.ScriptType,
		"again", !created, "trace_id", j.TraceID())
	if !created || b.cfg.ackDelay() <= 0 { // a resend: the first ack was lost, answer now
		ack()
		return nil
	}
	b.acks.later(sender, p.Ref, b.cfg.ackDelay(), func() { b.running(ack) })
	return nil
}

// accept materialises job src from sender (a peer ID's text) and caller
// (its local actor id). When the role check refuses an id that came from
// memory, the actor may have been made anew: it is looked up once more.
func (b *Bridge) accept(ctx context.Context, sender string, target uint64, p *payload, src *model.RunnerJob,
	caller uint64, cached bool) (*model.RunnerJob, string, bool, error) {
	j, m := b.localCopies(caller, target, sender, src, p)
	key, created, err := b.materialize(ctx, target, sender, p, m, j)
	if !errors.Is(err, store.ErrDenied) || !cached {
		return j, key, created, err
	}
	b.actors.forget(sender)
	again, _, aerr := b.actors.of(ctx, b.st.Registry, sender)
	if aerr != nil || again == caller {
		return j, key, created, err
	}
	j, m = b.localCopies(again, target, sender, src, p)
	key, created, err = b.materialize(ctx, target, sender, p, m, j)
	return j, key, created, err
}

// materialize stores a received job (store.MaterializeAndClaim), claiming it for
// the local runner in the same round trip when the runner has a slot free
// (Config.Offer).
func (b *Bridge) materialize(ctx context.Context, target uint64, sender string, p *payload,
	m *model.Message, j *model.RunnerJob) (string, bool, error) {
	var spec *store.ClaimSpec // nil: no claim
	var hand func(*store.Claim)
	if b.cfg.Offer != nil {
		if s, h, ok := b.cfg.Offer(target); ok {
			spec, hand = &s, h
		}
	}
	key, created, cl, err := b.st.Bus.MaterializeAndClaim(ctx, target, sender, p.Ref, p.OriginCtx, p.OriginJob, m, j, spec)
	if hand != nil {
		hand(cl) // nil: not claimed, the slot goes back
	}
	return key, created, err
}

// localCopies builds the job and message records of a received job.
func (b *Bridge) localCopies(caller, target uint64, sender string, src *model.RunnerJob, p *payload) (*model.RunnerJob, *model.Message) {
	self := b.names.name(b.self)
	// The sender's ids are kept where they are free here (seed 000: the
	// same message:12:101 on both sides), under the caller's local id.
	j := &model.RunnerJob{ID: src.ID, CallerID: caller, ContextID: target, Name: src.Name, Script: src.Script,
		ScriptType: src.ScriptType, Timeout: src.Timeout, Retries: src.Retries, EnvVars: src.EnvVars,
		MemoryMB: src.MemoryMB, CPU: src.CPU, Status: model.JobDispatched, Attempt: 1, Runner: self}
	j.SetOrigin(model.JobOrigin{Peer: sender, Context: p.OriginCtx, Job: p.OriginJob, Attempt: p.Attempt, Ref: p.Ref})
	j.SetTraceID(receivedTrace(src.TraceID()))
	j.SetNetwork(src.Network())                   // network none: the sender asked for no network here
	copyFiles(j, src)                             // outputs and inputs (files.go)
	if c := src.Concurrency(); c.Check() == nil { // ordered here, by this agent's runner
		j.SetConcurrency(c)
	}
	m := &model.Message{CallerID: caller, ContextID: target, MessageType: model.MsgTypeJob,
		Status: model.MsgAcknowledged, Dst: self, Job: []*model.RunnerJob{j},
		Extra: model.Hash{model.ExtraFrom: sender, model.ExtraOriginRef: p.Ref}}
	m.SetTraceID(j.TraceID())
	if p.Message != nil {
		m.ID = uint64(seconds(p.Message["id"]))
		m.Message = p.Message["message"]
		m.MessageFormatType = p.Message["message_format_type"]
		m.Timeout, m.TimeoutAck, m.TimeoutResult = seconds(p.Message["timeout"]),
			seconds(p.Message["timeout_ack"]), seconds(p.Message["timeout_result"])
	}
	return j, m
}

// hasContext reports whether context id exists here: from the contexts
// the bridge serves, else (one created since their last refresh, or none)
// from the store. Checked before anything is allocated for a job, so a job
// for a context that does not exist leaves nothing behind.
func (b *Bridge) hasContext(ctx context.Context, id uint64) (bool, error) {
	b.mu.Lock()
	_, ok := b.loops[id]
	b.mu.Unlock()
	if ok {
		return true, nil
	}
	_, err := b.st.Registry.LoadContext(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// grantHint tells the sender of a job refused for want of a role how the
// refusing agent lets it in: a grant in the target context (or the
// context itself, when it was deleted meanwhile).
func grantHint(target uint64, sender string, err error) string {
	if errors.Is(err, store.ErrNotFound) {
		return createHint(target)
	}
	return fmt.Sprintf(" (an admin of context %d there lets you in: hyphae context grant %d --actor %s --role executor)", target, target, sender)
}

// createHint tells the sender of a job for a context that does not exist
// how the refusing agent's operator makes it.
func createHint(target uint64) string {
	return fmt.Sprintf(" (its operator creates it: hyphae context create --id %d)", target)
}

func errOr(err error, msg string) string {
	if err != nil {
		return err.Error()
	}
	return msg
}

// answered takes one of our messages out of the outbox because its
// recipient refused it (an error reply). ok is false when there is nothing
// to do: the answer comes from someone else than the recipient, or for a
// message that has gone to no one yet (refused as error_from_stranger), or
// the message had already left the outbox (a duplicate).
func (b *Bridge) answered(ctx context.Context, from peer.ID, ref string) (uint64, string, *model.Message, bool, error) {
	ctxID, key, ok, err := b.ourRef(ctx, from, ref, "error_from_stranger")
	if !ok {
		return 0, "", nil, false, err
	}
	b.sent.awaitMessage(ctx, ctxID, key) // an answer that overtook Submit's write
	m, err := b.st.Bus.LoadMessageKey(ctx, ctxID, key)
	if errors.Is(err, store.ErrNotFound) {
		b.refused(from, "error_from_stranger", err)
		return 0, "", nil, false, nil
	}
	if err != nil {
		return 0, "", nil, false, err
	}
	if m.Dst != b.names.name(from) {
		b.refused(from, "error_from_stranger", nil)
		return 0, "", nil, false, nil
	}
	removed, err := b.st.Bus.OutboxRemove(ctx, ctxID, key)
	return ctxID, key, m, removed, err
}

// onAck marks one of our messages delivered: one round trip
// (store.AckFrom) for all but job messages, which also get their status
// (acknowledged) and a result deadline. An ack that says its job runs
// (sent or repeated by the target once the job started) moves the origin
// job to started. Only the peer a message went to may acknowledge it: any
// other ack (of a message sent elsewhere, not sent yet, or not there) is
// refused and changes nothing.
func (b *Bridge) onAck(ctx context.Context, from peer.ID, p *payload) error {
	ctxID, key, ok, err := b.ourRef(ctx, from, p.AckOf, "ack_from_stranger")
	if !ok {
		return err
	}
	b.sent.awaitMessage(ctx, ctxID, key) // an ack that overtook our write
	out, err := b.st.Bus.AckMessage(ctx, ctxID, key, b.names.name(from))
	switch {
	case errors.Is(err, store.ErrNotFound):
		b.refused(from, "ack_from_stranger", err)
		return nil
	case err != nil:
		return err
	case out == store.AckStranger:
		b.refused(from, "ack_from_stranger", nil)
		return nil
	case out == store.AckDuplicate && p.Status == statusStarted:
		return b.sentJobStarted(ctx, ctxID, key, nil)
	case out != store.AckJob:
		return nil
	}
	m, err := b.st.Bus.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		return err
	}
	_ = b.st.Bus.AwaitAdd(ctx, ctxID, key, time.Now().Add(b.resultWait(m)))
	if m.Status.CanMoveTo(model.MsgAcknowledged) {
		if err := b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgAcknowledged, nil); err != nil {
			return err
		}
	}
	if p.Status == statusStarted {
		return b.sentJobStarted(ctx, ctxID, key, m)
	}
	return nil
}

// onRefused ends one of our messages that the recipient refused.
func (b *Bridge) onRefused(ctx context.Context, from peer.ID, p *payload) error {
	ctxID, key, m, ok, err := b.answered(ctx, from, p.AckOf)
	if !ok {
		return err
	}
	reason := p.Error
	b.log.Warn("bridge: message refused", "by", b.names.name(from), "key", key, "reason", reason)
	if m.Status.CanMoveTo(model.MsgError) {
		_ = b.st.Bus.SetMessageStatus(ctx, ctxID, key, model.MsgError, model.Hash{"error": reason})
	}
	if m.MessageType == model.MsgTypeJob && len(m.Job) == 1 {
		b.fault(m, reason) // its circuit breaker counts it (breaker_route.go)
		_, err := b.failSent(ctx, ctxID, m.Job[0], 0, reason)
		return err
	}
	return nil
}

// onStop stops a job that the sender started here, if it is the job's
// caller or an admin of the context.
func (b *Bridge) onStop(ctx context.Context, from peer.ID, target uint64, p *payload) error {
	key, err := b.st.Bus.InboundJob(ctx, target, b.names.name(from), p.OriginCtx, p.OriginJob)
	if err != nil {
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, "stop: no such job here")
		return nil
	}
	j, err := b.st.Jobs.LoadJobKey(ctx, target, key)
	if err != nil {
		return err
	}
	actor, aerr := b.st.Registry.ActorByPubkey(ctx, b.names.name(from))
	_, admErr := b.st.Registry.Authorize(ctx, target, b.names.name(from), model.RoleAdmin)
	if aerr != nil || (actor.ID != j.CallerID && admErr != nil) {
		b.refused(from, "unauthorized", nil)
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, "stop refused: only the job's caller or an admin may stop it")
		return nil
	}
	if j.Status.Terminal() { // nothing to stop; without an answer the sender would resend until its timeout
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, fmt.Sprintf("stop: job already ended (%s)", j.Status))
		return nil
	}
	if b.cfg.StopLocal != nil {
		if err := b.cfg.StopLocal(ctx, target, key); err != nil {
			return err
		}
	}
	b.reply(ctx, from, envelope.TypeAck, target, p.Ref, "")
	return nil
}

// onMail stores a chat or mail message on the target context's msg_in,
// once per (sender, ref).
func (b *Bridge) onMail(ctx context.Context, from peer.ID, target uint64, typ envelope.Type, p *payload) error {
	if p.Message["message_type"] == string(model.MsgTypeEvent) {
		return b.onEvent(ctx, from, target, p) // event.go
	}
	actor, err := b.st.Registry.Authorize(ctx, target, b.names.name(from), model.RoleReader)
	if err != nil {
		b.refused(from, "unauthorized", nil)
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, err.Error())
		return nil
	}
	m := &model.Message{CallerID: actor.ID, ContextID: target, MessageType: model.MessageType(typ.String()),
		Status: model.MsgProcessed, Extra: model.Hash{model.ExtraFrom: b.names.name(from), model.ExtraOriginRef: p.Ref}}
	m.SetTraceID(receivedTrace(p.Message[model.ExtraTraceID]))
	if p.Message != nil {
		m.Message, m.MessageFormatType = p.Message["message"], p.Message["message_format_type"]
	}
	if _, err := b.st.Events.ReceiveEvent(ctx, target, b.names.name(from), p.Ref, m); err != nil { // also an event (message.<type>)
		return err // no ack: the sender resends
	}
	b.reply(ctx, from, envelope.TypeAck, target, p.Ref, "") // a resend is acked again, stored once
	return nil
}

// seconds reads a time-out of a received message hash: the sender's
// value is kept on the receiver's copy (issue 39); a missing or
// malformed one is 0, as before.
func seconds(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
