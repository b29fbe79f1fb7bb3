package control

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

func (h *Handlers) registerMessageMethods() {
	api.RegisterShapes(h.table, "message.create", "Send a message to another agent's context: {context, dst, message_type (chat|mail), message}, "+
		"or the seed's {context_id, message:{id, message_type (job|chat|mail), message_format_type, job:[…], dst, …}} (saved and pushed on msg_out).",
		api.Alt(func(ctx context.Context, p struct {
			Context uint64 `json:"context"` // the target context on the recipient
			From    uint64 `json:"from_context,omitempty"`
			Dst     string `json:"dst"`
			Type    string `json:"message_type"`
			Message string `json:"message"`
			Format  string `json:"message_format_type,omitempty"` // html, text or md
			wire.TraceParams
		}) (*wire.MessageView, error) {
			tp, err := adoptTrace(p.TraceParams)
			if err != nil {
				return nil, err
			}
			if _, err := peer.Decode(p.Dst); err != nil {
				return nil, api.InvalidParams("dst", "not a peer ID: %v", err)
			}
			if p.Type != "chat" && p.Type != "mail" {
				return nil, api.InvalidParams("message_type", "%q: want chat or mail (jobs go through job.run)", p.Type)
			}
			if p.Format != "" && p.Format != "html" && p.Format != "text" && p.Format != "md" {
				return nil, api.InvalidParams("message_format_type", "%q: want html, text or md", p.Format)
			}
			origin, err := h.originContext(ctx, max(p.From, p.Context))
			if err != nil {
				return nil, err
			}
			m := &model.Message{CallerID: h.Self.ID, ContextID: p.Context, MessageType: model.MessageType(p.Type),
				Message: p.Message, MessageFormatType: p.Format, Dst: p.Dst, Timeout: int64(h.Cfg.Bus.Timeout.Seconds())}
			m.SetTraceID(tp)
			if err := h.Store.Bus.PushMessage(ctx, origin, m, store.MsgOutKey); err != nil {
				return nil, err
			}
			return h.messageLoad(ctx, origin, store.MessageKey(m.CallerID, m.ID))
		}),
		api.Alt(h.seedMessageCreate))
	api.RegisterShapes(h.table, "message.load", "Show a message: {context, key} (message:<caller>:<id>), or the seed's {context_id, caller_id, id}.",
		api.Alt(func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
			Key     string `json:"key"`
		}) (*wire.MessageView, error) {
			if _, _, err := store.ParseMessageKey(p.Key); err != nil {
				return nil, api.InvalidParams("key", "%v", err)
			}
			return h.messageLoad(ctx, p.Context, p.Key)
		}),
		api.Alt(h.seedMessageLoad))
	api.Register(h.table, "message.list", "List a context's messages.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
		}) ([]*wire.MessageView, error) {
			ms, err := h.Store.Bus.ListMessages(ctx, p.Context)
			if err != nil {
				return nil, err
			}
			out := make([]*wire.MessageView, 0, len(ms))
			for _, m := range ms {
				out = append(out, messageView(store.MessageKey(m.CallerID, m.ID), m))
			}
			return out, nil
		})
}

func (h *Handlers) messageLoad(ctx context.Context, ctxID uint64, key string) (*wire.MessageView, error) {
	m, err := h.Store.Bus.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		return nil, err
	}
	return messageView(key, m), nil
}

func messageView(key string, m *model.Message) *wire.MessageView {
	return &wire.MessageView{Key: key, Fields: m.ToHash(), Status: string(m.Status), Type: string(m.MessageType), Context: m.ContextID,
		TraceID: m.TraceID()}
}
