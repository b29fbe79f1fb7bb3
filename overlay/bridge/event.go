package bridge

import (
	"context"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// Events (model/event.go) travel as mail does: sealed as TypeMail, their
// message hash in the payload (message_type event says which), acked,
// resent until acked, and stored once per (sender, ref) at the target.
// A received event needs its sender to be an executor of the target
// context (it may start runs there); it lands on msg_in and on the
// context's events list in one script (store.ReceiveEvent). An event
// whose name or payload is unusable is answered with an error naming the
// problem, so the sender's message ends error with it; nothing is stored.
// Names beginning message., flow. or job. are the agent's own events
// (model.ReservedEventPrefixes): one received is refused so (and counted,
// reasonReservedEvent), and a client's is refused at msg_out. A received
// event's from is always its envelope's signer, never a field it carries.

// reasonReservedEvent counts events of a reserved name from other agents.
const reasonReservedEvent = "reserved_event"

// takeEvent handles an event taken from msg_out: one without a recipient
// is this agent's own, handed to its event loop (store.QueueLocalEvent);
// one with a recipient is sent as mail is (done false). A malformed event
// is a bad message (its status error, with the reason).
func (b *Bridge) takeEvent(ctx context.Context, ctxID uint64, key string, m *model.Message) (bool, error) {
	if m.MessageType != model.MsgTypeEvent {
		return false, nil
	}
	if _, err := model.EventOf(key, m); err != nil {
		return true, bad("%v", err)
	}
	if err := model.CheckPublishedEventName(m.Extra[model.ExtraEventName]); err != nil {
		return true, bad("%v", err)
	}
	if m.Dst != "" {
		return false, nil
	}
	return true, b.st.Events.QueueLocalEvent(ctx, ctxID, store.MsgOutProcessingKey, key)
}

// onEvent stores an event received from another agent.
func (b *Bridge) onEvent(ctx context.Context, from peer.ID, target uint64, p *payload) error {
	name := b.names.name(from)
	actor, err := b.st.Registry.Authorize(ctx, target, name, model.RoleExecutor)
	if err != nil {
		b.refused(from, "unauthorized", nil)
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, err.Error())
		return nil
	}
	m := &model.Message{CallerID: actor.ID, ContextID: target, MessageType: model.MsgTypeEvent,
		Message: p.Message["message"], MessageFormatType: model.EventFormat, Status: model.MsgProcessed,
		Extra: model.Hash{model.ExtraFrom: name, model.ExtraOriginRef: p.Ref}}
	for _, f := range []string{model.ExtraEventName, model.ExtraEventID, model.ExtraCorrelationID, model.ExtraTraceID} {
		if v := p.Message[f]; v != "" {
			m.Extra[f] = v
		}
	}
	if _, err := model.EventOf("", m); err != nil {
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, "event refused: "+err.Error())
		return nil
	}
	if err := model.CheckPublishedEventName(m.Extra[model.ExtraEventName]); err != nil {
		b.refused(from, reasonReservedEvent, err)
		b.reply(ctx, from, envelope.TypeError, target, p.Ref, "event refused: "+err.Error())
		return nil
	}
	if _, err := b.st.Events.ReceiveEvent(ctx, target, name, p.Ref, m); err != nil {
		return err // no ack: the sender resends
	}
	b.reply(ctx, from, envelope.TypeAck, target, p.Ref, "")
	return nil
}
