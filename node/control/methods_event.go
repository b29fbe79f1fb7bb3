package control

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/scheduler"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

func (h *Handlers) registerEventMethods() {
	api.Register(h.table, "event.publish", "Publish an event {context, name, data (JSON), correlation_id, id, to}: "+
		"without to, this agent's own (its triggers start runs, its wait_for steps may resume); with to (a peer ID), "+
		"sent there, signed, as a message of type event (the sender must be an executor of that context). "+
		"Names beginning message., flow. or job. are reserved for the agent's own events.", h.eventPublish)
	api.Register(h.table, "event.list", "List the newest events of a context {context, limit (default 100)}.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
			Limit   int    `json:"limit,omitempty"`
		}) ([]*wire.EventView, error) {
			if p.Limit <= 0 {
				p.Limit = 100
			}
			es, err := h.Store.Events.ListEvents(ctx, p.Context, p.Limit)
			if err != nil {
				return nil, err
			}
			out := make([]*wire.EventView, 0, len(es))
			for _, e := range es {
				out = append(out, eventView(p.Context, e, "", ""))
			}
			return out, nil
		})
	if h.Sched != nil {
		h.registerTriggerMethods()
	}
}

func (h *Handlers) eventPublish(ctx context.Context, p wire.EventPublishParams) (*wire.EventView, error) {
	m, err := eventMessage(p)
	if err != nil {
		return nil, err
	}
	if p.To == "" {
		if err := h.requireContext(ctx, p.Context); err != nil {
			return nil, err
		}
		if err := h.Store.Events.PublishEvent(ctx, p.Context, m); err != nil {
			return nil, err
		}
		return h.eventLoad(ctx, p.Context, m)
	}
	origin, err := h.originContext(ctx, max(p.From, p.Context))
	if err != nil {
		return nil, err
	}
	m.CallerID, m.Dst, m.Timeout = h.Self.ID, p.To, int64(h.Cfg.Bus.Timeout.Seconds())
	if err := h.Store.Bus.PushMessage(ctx, origin, m, store.MsgOutKey); err != nil {
		return nil, err
	}
	return h.eventLoad(ctx, origin, m)
}

// eventMessage checks p and makes its event message.
func eventMessage(p wire.EventPublishParams) (*model.Message, error) {
	if err := model.CheckPublishedEventName(p.Name); err != nil { // message.*, flow.*, job.*: the agent's own
		return nil, api.InvalidParams("name", "%v", err)
	}
	data := string(p.Data)
	if data == "" {
		data = "null"
	}
	if err := model.CheckEventPayload(data); err != nil {
		return nil, api.InvalidParams("data", "%v", err)
	}
	if p.To != "" {
		if _, err := peer.Decode(p.To); err != nil {
			return nil, api.InvalidParams("to", "not a peer ID: %v", err)
		}
	}
	switch {
	case p.Idempotency != "" && p.ID != "" && p.Idempotency != p.ID:
		return nil, api.InvalidParams("idempotency_key", "is the event's id: give id or idempotency_key, not two different ones")
	case p.Idempotency != "":
		p.ID = p.Idempotency
	case p.ID == "":
		p.ID = newEventID()
	}
	return &model.Message{ContextID: p.Context, MessageType: model.MsgTypeEvent, Message: data,
		MessageFormatType: model.EventFormat, Extra: model.Hash{model.ExtraEventName: p.Name,
			model.ExtraEventID: p.ID, model.ExtraCorrelationID: p.CorrelationID}}, nil
}

// requireContext refuses a context this agent does not have.
func (h *Handlers) requireContext(ctx context.Context, id uint64) error {
	ids, err := h.ContextIDs(ctx)
	if err != nil {
		return err
	}
	if !slices.Contains(ids, id) {
		return api.Errorf(api.CodeNotFound, "context %d: not on this agent (hyphae context create)", id)
	}
	return nil
}

// newEventID is a random id (128 bits, hex).
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (h *Handlers) eventLoad(ctx context.Context, ctxID uint64, m *model.Message) (*wire.EventView, error) {
	key := store.MessageKey(m.CallerID, m.ID)
	stored, err := h.Store.Bus.LoadMessageKey(ctx, ctxID, key)
	if err != nil {
		return nil, err
	}
	e, err := model.EventOf(key, stored)
	if err != nil {
		return nil, err
	}
	return eventView(ctxID, e, stored.Dst, string(stored.Status)), nil
}

func eventView(ctxID uint64, e *model.Event, to, status string) *wire.EventView {
	return &wire.EventView{Key: e.Key, Context: ctxID, ID: e.ID, Name: e.Name, CorrelationID: e.CorrelationID,
		Data: e.Data, From: e.From, To: to, Status: status}
}

func (h *Handlers) registerTriggerMethods() {
	api.Register(h.table, "event.trigger.add", "Install the `on:` of a flow file {file_content, file_name, base_dir, context}: "+
		"each matching event of the context starts one run of the flow. A trigger is named after its flow; adding one "+
		"of the same name replaces it.", h.triggerAdd)
	api.Register(h.table, "event.trigger.list", "List the triggers of a context.",
		func(ctx context.Context, p struct {
			Context uint64 `json:"context"`
		}) ([]*wire.TriggerView, error) {
			vs, err := h.Sched.Triggers(ctx, p.Context)
			return triggerViews(vs), err
		})
	api.Register(h.table, "event.trigger.remove", "Delete a trigger {context, name}; the runs it started stay.",
		func(ctx context.Context, p wire.TriggerRef) (map[string]bool, error) {
			if p.Context == 0 || p.Name == "" {
				return nil, api.InvalidParams("name", "required: the context and the trigger's (its flow's) name")
			}
			if err := h.Sched.RemoveTrigger(ctx, p.Context, p.Name); err != nil {
				return nil, err
			}
			return map[string]bool{"removed": true}, nil
		})
}

func (h *Handlers) triggerAdd(ctx context.Context, p wire.TriggerAddParams) (*wire.TriggerView, error) {
	f, err := h.installable(ctx, flowFileParams(p), func(f *flowfile.File) bool { return f.On != nil },
		scheduler.ErrNoTrigger)
	if err != nil {
		return nil, err
	}
	v, err := h.Sched.AddTrigger(ctx, f, h.Self.ID)
	return triggerView(v), err
}
