package overlay

import (
	"context"
	"errors"
	"time"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// ValidationResult is a validator's verdict (pubsub's, re-exported).
type ValidationResult = pubsub.ValidationResult

// Verdicts: accept and forward; reject and penalise the sender; ignore
// silently.
const (
	ValidationAccept = pubsub.ValidationAccept
	ValidationReject = pubsub.ValidationReject
	ValidationIgnore = pubsub.ValidationIgnore
)

// Received is a payload addressed to this agent.
type Received struct {
	From    peer.ID // the pubsub author (verified signature)
	Data    []byte  // the payload, without the overlay frame
	Topic   string  // InboxTopic(self) or RelayTopic
	Checked any     // what the InboxValidator returned with its accept (nil by default)
}

// InboxValidator judges a payload addressed to this agent before it is
// accepted (and, on the relay topic, forwarded). from is the author (the
// pubsub author, or the remote peer of a direct stream). What it returns
// beside an accept (its parsed form of data, say) reaches the reader as
// Received.Checked, so nothing is parsed or verified twice.
//
// It runs inline in one of gossipsub's few validation workers, which also
// check presence, or in a direct stream's reader: it must answer in
// bounded time (CPU work, or I/O under a short deadline, answering
// ValidationIgnore when that runs out).
type InboxValidator func(ctx context.Context, from peer.ID, data []byte) (ValidationResult, any)

// SetInboxValidator installs v for payloads addressed to this agent on the
// inbox and relay topics; nil restores the default (accept when the size
// fits). Relay frames for other agents are never passed to v.
func (o *Overlay) SetInboxValidator(v InboxValidator) {
	if v == nil {
		o.validator.Store(nil)
		return
	}
	o.validator.Store(&v)
}

// Inbox delivers payloads addressed to this agent, from the inbox and the
// relay topic and from direct streams; never messages this agent
// published. It is closed by Shutdown.
func (o *Overlay) Inbox() <-chan Received { return o.received }

// judge runs the caller's validator, or the default size check, unless
// from's conduct has it rate limited (the frame is dropped unjudged). A
// rejection counts against from's conduct.
func (o *Overlay) judge(ctx context.Context, from peer.ID, data []byte) (pubsub.ValidationResult, any) {
	now := time.Now()
	if !o.conduct.allow(from, now) {
		o.stats.limited.Add(1)
		return pubsub.ValidationIgnore, nil
	}
	res, checked := pubsub.ValidationAccept, any(nil)
	if v := o.validator.Load(); v != nil {
		res, checked = (*v)(ctx, from, data)
	} else if len(data) > o.MaxPayload() {
		res = pubsub.ValidationReject
	}
	if res == pubsub.ValidationReject {
		o.conduct.mark(from, now)
	}
	return res, checked
}

// accepted is what an accepted frame for us carries to readInbox.
type accepted struct {
	payload []byte
	checked any
}

// validateInbox guards our inbox topic: only frames for us, judged.
func (o *Overlay) validateInbox(ctx context.Context, _ peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	f, err := decodeFrame(m.Data)
	switch {
	case errors.Is(err, errFrameVersion):
		return pubsub.ValidationIgnore
	case err != nil || f.to != o.id:
		return pubsub.ValidationReject
	}
	return o.accept(ctx, m, f)
}

// validateRelay guards the relay topic: frames for others propagate,
// malformed ones are dropped without penalty, ours are judged.
func (o *Overlay) validateRelay(ctx context.Context, _ peer.ID, m *pubsub.Message) pubsub.ValidationResult {
	f, err := decodeFrame(m.Data)
	switch {
	case err != nil:
		return pubsub.ValidationIgnore
	case f.to != o.id || m.GetFrom() == o.id:
		return pubsub.ValidationAccept
	}
	return o.accept(ctx, m, f)
}

// accept judges a frame for us and hands its payload to the reader.
func (o *Overlay) accept(ctx context.Context, m *pubsub.Message, f frame) pubsub.ValidationResult {
	res, checked := o.judge(ctx, m.GetFrom(), f.payload)
	if res == pubsub.ValidationAccept {
		m.ValidatorData = accepted{f.payload, checked}
	}
	return res
}

// readInbox moves accepted payloads from sub to the Inbox channel.
func (o *Overlay) readInbox(sub *pubsub.Subscription) {
	defer sub.Cancel()
	for {
		m, err := sub.Next(o.ctx)
		if err != nil {
			return
		}
		a, ok := m.ValidatorData.(accepted)
		if !ok || m.GetFrom() == o.id {
			continue // for another agent, or our own publication
		}
		r := Received{From: m.GetFrom(), Data: a.payload, Topic: sub.Topic(), Checked: a.checked}
		select {
		case o.received <- r:
		case <-o.ctx.Done():
			return
		}
	}
}

// startBus subscribes to our inbox and the relay topic.
func (o *Overlay) startBus() error {
	for _, t := range []*pubsub.Topic{o.inbox, o.relay} {
		sub, err := t.Subscribe(pubsub.WithBufferSize(subscriptionBuffer))
		if err != nil {
			return err
		}
		o.spawn(func() { o.readInbox(sub) })
	}
	return nil
}
