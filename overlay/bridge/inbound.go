package bridge

import (
	"context"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/hyphae-run/hyphae/crypto/envelope"
	"github.com/hyphae-run/hyphae/overlay"
)

// validate is the overlay's inbox validator: malformed, oversized, badly
// signed or skewed envelopes are rejected (and the sender's score drops),
// envelopes sealed to another agent are ignored, and replays (an envelope
// id already seen from that sender, remembered in Redis for twice the skew
// window) are rejected — all before they reach receiveLoop.
func (b *Bridge) validate(ctx context.Context, from peer.ID, data []byte) (pubsub.ValidationResult, any) {
	env, err := b.ver.Check(data, from)
	if err != nil {
		b.stats.reject(b.log, b.names.name(from), envelope.Reason(err), err)
		return pubsub.ValidationReject, nil
	}
	if env.To != b.self { // sealed to someone else: ignored, not punished
		b.stats.reject(b.log, b.names.name(from), "not_for_me", nil)
		return pubsub.ValidationIgnore, nil
	}
	fresh, err := b.seenBefore(ctx, env)
	switch {
	case err != nil: // cannot tell: drop unpunished, the sender resends
		b.log.Warn("bridge: replay check", "err", err)
		return pubsub.ValidationIgnore, nil
	case !fresh: // a replay: rejected, and the sender's score drops
		b.stats.reject(b.log, b.names.name(from), "replay", nil)
		return pubsub.ValidationReject, nil
	}
	return pubsub.ValidationAccept, env // receive needs not check it again
}

// replayCheckTimeout bounds seenBefore's Redis check: the validator runs
// in one of gossipsub's validation workers or a direct stream's reader
// (see overlay.InboxValidator).
// An envelope it cannot judge in time is ignored; its sender resends.
const replayCheckTimeout = 250 * time.Millisecond

// seenBefore reports whether env is new: from memory when that suffices,
// else from Redis (see replays), within replayCheckTimeout. With
// Plain.Replay Redis decides every time; the horizon is still kept ahead
// (replays.run), so a later run with the shortcut on may trust it.
func (b *Bridge) seenBefore(ctx context.Context, env *envelope.Envelope) (bool, error) {
	memory := !b.cfg.Plain.Replay
	if memory {
		if fresh, ok := b.replay.fresh(env); ok {
			return fresh, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, replayCheckTimeout)
	defer cancel()
	fresh, err := b.st.Bus.MarkSeen(ctx, env.ReplayKey(), b.replayTTL())
	if err == nil && fresh && memory {
		b.replay.remember(env)
	}
	return fresh, err
}

// replayTTL is how long Redis remembers a received envelope id.
func (b *Bridge) replayTTL() time.Duration { return 2*b.cfg.Skew + time.Minute }

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
			b.receive(r)
		}
	}
}

// receive opens one envelope the validator accepted (and marked seen),
// verifying it again only when the validator's result is not at hand (one
// accepted before the bridge installed its validator, or Plain.Caches),
// then handles it.
// Nothing here may panic or block for long on bad input.
func (b *Bridge) receive(r overlay.Received) {
	from := r.From
	env, _ := r.Checked.(*envelope.Envelope)
	if env == nil || b.cfg.Plain.Caches { // plain: verified again here
		var err error
		if env, err = b.ver.Check(r.Data, from); err != nil {
			b.refused(from, envelope.Reason(err), err)
			return
		}
	}
	plain, err := b.ver.Open(env)
	if err != nil {
		b.refused(from, envelope.Reason(err), err)
		return
	}
	p, err := decodePayload(plain)
	if err != nil {
		b.refused(from, "bad_payload", err)
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
	case envelope.TypeStatus:
		err = b.onStatus(ctx, from, target, p)
	default:
		b.refused(from, "unhandled_type", nil)
		return
	}
	if err != nil && ctx.Err() == nil {
		b.log.Warn("bridge: handling message", "from", b.names.name(from), "type", typ.String(), "err", err)
	}
	b.piggybacked(ctx, from, p.Acks)
}

// piggybacked handles the acks that rode on a message (see pendingAcks),
// after the message itself.
func (b *Bridge) piggybacked(ctx context.Context, from peer.ID, refs []string) {
	if len(refs) > maxPiggyback {
		b.refused(from, "too_many_acks", nil)
		refs = refs[:maxPiggyback]
	}
	for _, ref := range refs {
		if err := b.onAck(ctx, from, &payload{AckOf: ref}); err != nil && ctx.Err() == nil {
			b.log.Debug("bridge: piggybacked ack", "from", b.names.name(from), "ref", ref, "err", err)
		}
	}
}

// reply sends an unreliable answer (ack or error) to a ref.
func (b *Bridge) reply(ctx context.Context, to peer.ID, typ envelope.Type, target uint64, ref, reason string) {
	p := &payload{AckOf: ref, Error: reason}
	if err := b.deliver(ctx, to, typ, target, 0, p); err != nil && ctx.Err() == nil {
		b.log.Debug("bridge: reply", "to", b.names.name(to), "type", typ.String(), "err", err)
	}
}
