package control

import (
	"cmp"
	"context"
	"fmt"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// seedMessageCreate is message.create {context_id, message:{…}}: the
// message saved under the id its caller chose (or a new one) and pushed
// on msg_out in the same step, so the bridge sends it: a job message to
// dst (or, without one, to a runner registered in the context), a chat or
// mail message likewise.
func (h *Handlers) seedMessageCreate(ctx context.Context, p wire.SeedMessageParams) (*wire.SeedMessage, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	in := p.Message
	m := &model.Message{ID: in.ID, CallerID: cmp.Or(in.CallerID, h.Self.ID), ContextID: cmp.Or(in.ContextID, p.ContextID),
		Message: in.Message, MessageType: model.MessageType(in.MessageType), MessageFormatType: in.MessageFormatType,
		Timeout: cmp.Or(in.Timeout, int64(h.Cfg.Bus.Timeout.Seconds())), TimeoutAck: in.TimeoutAck,
		TimeoutResult: in.TimeoutResult, Logs: in.Logs, Status: model.MessageStatus(in.Status), Error: in.Error,
		CreatedAt: in.CreatedAt}
	if err := checkSeedMessage(&in, m); err != nil {
		return nil, err
	}
	for i, sj := range in.Job {
		j, err := seedJobModel(sj, fmt.Sprintf("message.job[%d]", i), m.ContextID, m.CallerID)
		if err != nil {
			return nil, err
		}
		m.Job = append(m.Job, j)
	}
	if in.Dst != "" {
		dst, err := peerIDOf(in.Dst)
		if err != nil {
			return nil, api.InvalidParams("message.dst", "%v", err)
		}
		m.Dst = dst
	}
	if err := h.Store.Bus.CreateMessage(ctx, p.ContextID, m, store.MsgOutKey); err != nil {
		return nil, err
	}
	return seedMessage(m), nil
}

func checkSeedMessage(in *wire.SeedMessageIn, m *model.Message) error {
	switch m.MessageType {
	case model.MsgTypeJob:
		if len(in.Job) == 0 {
			return api.InvalidParams("message.job", "required: a job message carries the job to run")
		}
	case model.MsgTypeChat, model.MsgTypeMail: // without dst: to a runner registered in the context
	default:
		return api.InvalidParams("message.message_type", "%q: want job, chat or mail", in.MessageType)
	}
	switch in.MessageFormatType {
	case "", "html", "text", "md":
	default:
		return api.InvalidParams("message.message_format_type", "%q: want html, text or md", in.MessageFormatType)
	}
	if m.Status != "" && !m.Status.Valid() {
		return api.InvalidParams("message.status", "%q: want dispatched, acknowledged, error or processed", in.Status)
	}
	if in.Timeout < 0 || in.TimeoutAck < 0 || in.TimeoutResult < 0 {
		return api.InvalidParams("message.timeout", "timeouts must not be negative")
	}
	return nil
}

// seedMessageLoad is message.load {context_id, caller_id, id}.
func (h *Handlers) seedMessageLoad(ctx context.Context, p wire.SeedCallerRef) (*wire.SeedMessage, error) {
	if err := h.seedContext(ctx, p.ContextID); err != nil {
		return nil, err
	}
	m, err := h.Store.Bus.LoadMessage(ctx, p.ContextID, p.CallerID, p.ID)
	if err != nil {
		return nil, err
	}
	return seedMessage(m), nil
}
