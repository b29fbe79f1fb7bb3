package bridge

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// remoteDoneLoop turns each ended job that came from another agent into a
// result message in this context's outbox.
func (b *Bridge) remoteDoneLoop(ctx context.Context, ctxID uint64) {
	if _, err := b.st.Requeue(ctx, ctxID, store.RemoteDoneProcessingKey, store.RemoteDoneKey); err != nil {
		b.log.Warn("bridge: recover remote_done", "context", ctxID, "err", err)
	}
	for ctx.Err() == nil {
		key, err := b.st.TakeMsgOut(ctx, ctxID, store.RemoteDoneKey, store.RemoteDoneProcessingKey, time.Second)
		if err != nil || key == "" {
			if err != nil && ctx.Err() == nil {
				sleep(ctx, time.Second)
			}
			continue
		}
		if err := b.queueResult(ctx, ctxID, key); err != nil {
			b.log.Warn("bridge: result", "context", ctxID, "job", key, "err", err)
		}
		_ = b.st.Done(ctx, ctxID, store.RemoteDoneProcessingKey, key)
	}
}

// queueResult stores a result message for job key and sends it.
func (b *Bridge) queueResult(ctx context.Context, ctxID uint64, key string) error {
	j, err := b.st.LoadJobKey(ctx, ctxID, key)
	if err != nil {
		return err
	}
	m := &model.Message{CallerID: j.CallerID, ContextID: ctxID, MessageType: model.MsgTypeResult,
		Status: model.MsgDispatched, Dst: j.Extra["origin_peer"], Timeout: int64(b.cfg.Timeout / time.Second),
		Extra: model.Hash{"result_of": key}}
	if err := b.st.SaveMessage(ctx, m); err != nil {
		return err
	}
	mk := store.MessageKey(m.CallerID, m.ID)
	if err := b.st.OutboxAdd(ctx, ctxID, mk, time.Now()); err != nil {
		return err
	}
	b.trySend(ctxID, mk)
	return nil
}

// resultPayload fills a result payload from the job the message reports.
func (b *Bridge) resultPayload(ctx context.Context, ctxID uint64, p *payload, m *model.Message) (*payload, envelope.Type, uint64, int64, error) {
	j, err := b.st.LoadJobKey(ctx, ctxID, m.Extra["result_of"])
	if err != nil {
		return nil, 0, 0, 0, err
	}
	p.OriginCtx, _ = strconv.ParseUint(j.Extra["origin_context"], 10, 64)
	p.OriginJob = j.Extra["origin_job"]
	p.Attempt, _ = strconv.ParseInt(j.Extra["origin_attempt"], 10, 64)
	p.Status, p.Result, p.Error = string(j.Status), j.Result, j.Error
	p.Logs, _ = b.st.ReadLogs(ctx, ctxID, store.JobKey(j.CallerID, j.ID), -50)
	return p, envelope.TypeResult, p.OriginCtx, p.Attempt, nil
}

// onResult writes a remote job's result onto the origin job (fenced on
// the attempt it belongs to), then acknowledges it.
func (b *Bridge) onResult(ctx context.Context, from peer.ID, p *payload) error {
	j, err := b.st.LoadJobKey(ctx, p.OriginCtx, p.OriginJob)
	if err != nil {
		return err
	}
	if j.Runner != from.String() && !strings.HasPrefix(j.Runner, "runner:") {
		// Not from the runner the job went to (it moved on, or a stranger):
		// ignored, but acknowledged so the sender stops resending.
		b.stats.add(b.stats.rejected, "unexpected_result")
		b.reply(ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "")
		return nil
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
	err = b.st.CompleteJob(ctx, p.OriginCtx, p.OriginJob, p.Attempt, status,
		model.Hash{"result": fields["result"], "error": p.Error, "ran_on": from.String()})
	switch {
	case err == nil:
		if mk := j.Extra["message_key"]; mk != "" {
			_ = b.st.SetMessageStatus(ctx, p.OriginCtx, mk, model.MsgProcessed, nil)
			_, _ = b.st.OutboxRemove(ctx, p.OriginCtx, mk)
			_ = b.st.AwaitRemove(ctx, p.OriginCtx, mk)
		}
	case errors.Is(err, store.ErrFenced), errors.Is(err, model.ErrBadTransition):
		b.stats.add(b.stats.rejected, "late_result") // an old attempt, or a duplicate
	default:
		return err // no ack: the sender will resend
	}
	b.reply(ctx, from, envelope.TypeAck, p.OriginCtx, p.Ref, "")
	return nil
}
