package bridge

import (
	"context"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/crypto/envelope"
)

// validate is the overlay's inbox validator: malformed, oversized, badly
// signed, skewed or misaddressed envelopes are rejected (and the sender's
// score drops) before they reach receiveLoop.
func (b *Bridge) validate(_ context.Context, from peer.ID, data []byte) pubsub.ValidationResult {
	if _, err := b.ver.Check(data, from); err != nil {
		b.stats.reject(b.log, from.String(), envelope.Reason(err), err)
		return pubsub.ValidationReject
	}
	return pubsub.ValidationAccept
}

// receiveLoop handles envelopes from the overlay.
func (b *Bridge) receiveLoop() {
	in := b.tr.Inbox()
	for {
		select {
		case <-b.ctx.Done():
			return
		case r, ok := <-in:
			if !ok {
				return
			}
			b.receive(r.From, r.Data)
		}
	}
}

// receive verifies, dedupes and opens one envelope, then handles it.
// Nothing here may panic or block for long on bad input.
func (b *Bridge) receive(from peer.ID, data []byte) {
	env, err := b.ver.Check(data, from)
	if err != nil {
		b.stats.reject(b.log, from.String(), envelope.Reason(err), err)
		return
	}
	fresh, err := b.st.MarkSeen(b.ctx, env.ReplayKey(), 2*b.cfg.Skew+time.Minute)
	if err != nil {
		b.log.Warn("bridge: replay check", "err", err)
		return
	}
	if !fresh {
		b.stats.reject(b.log, from.String(), "replay", nil)
		return
	}
	plain, err := b.ver.Open(env)
	if err != nil {
		b.stats.reject(b.log, from.String(), envelope.Reason(err), err)
		return
	}
	p, err := decodePayload(plain)
	if err != nil {
		b.stats.reject(b.log, from.String(), "bad_payload", err)
		return
	}
	b.stats.add(b.stats.received, env.Type.String())
	b.handle(b.ctx, from, env.Type, env.Context, p)
}

// handle dispatches an authentic payload by type.
func (b *Bridge) handle(ctx context.Context, from peer.ID, typ envelope.Type, target uint64, p *payload) {
	var err error
	switch typ {
	case envelope.TypeJob:
		err = b.onJob(ctx, from, target, p)
	case envelope.TypeAck:
		err = b.onAck(ctx, from, p)
	case envelope.TypeError:
		err = b.onRefused(ctx, from, p)
	case envelope.TypeResult:
		err = b.onResult(ctx, from, p)
	case envelope.TypeStop:
		err = b.onStop(ctx, from, target, p)
	case envelope.TypeChat, envelope.TypeMail:
		err = b.onMail(ctx, from, target, typ, p)
	default:
		b.stats.reject(b.log, from.String(), "unhandled_type", nil)
		return
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn("bridge: handling message", "from", from.String(), "type", typ.String(), "err", err)
	}
}

// reply sends an unreliable answer (ack or error) to a ref.
func (b *Bridge) reply(ctx context.Context, to peer.ID, typ envelope.Type, target uint64, ref, reason string) {
	p := &payload{AckOf: ref, Error: reason}
	if err := b.deliver(ctx, to, typ, target, 0, p); err != nil && ctx.Err() == nil {
		b.log.Debug("bridge: reply", "to", to.String(), "type", typ.String(), "err", err)
	}
}
