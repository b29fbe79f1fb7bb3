package overlay

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// routePoll is how often Send re-checks the topic peers while it waits.
const routePoll = 10 * time.Millisecond

// Send delivers data to peer to. When this agent is connected to to, the
// frame goes on a direct stream (see the package doc); otherwise, or when
// that fails, it publishes on to's inbox topic once to is a known subscriber
// there (dialling it when its addresses are known or the DHT finds it, and
// going direct as soon as that connects), waiting up to SendDirectWait (and
// never more than half of ctx's remaining time). If to cannot be reached
// directly, it publishes on the relay topic, which every agent forwards, as
// soon as that topic has a peer. It waits at most until ctx is done
// (ErrNoRoute).
//
// A nil error means the frame was handed to a stream or a topic peer, not
// that it was delivered: acknowledgements are the caller's. Send to the
// agent itself returns ErrSelfSend; the caller delivers locally.
func (o *Overlay) Send(ctx context.Context, to peer.ID, data []byte) error {
	if to == o.id {
		return ErrSelfSend
	}
	if len(data) > o.MaxPayload() {
		return fmt.Errorf("overlay.Send to %s: %w (%d bytes, max %d)", to, ErrTooLarge, len(data), o.MaxPayload())
	}
	if err := to.Validate(); err != nil {
		return fmt.Errorf("overlay.Send: recipient: %w", err)
	}
	frame, err := encodeFrame(to, data) // a fresh slice per publish (pitfall 2)
	if err != nil {
		return fmt.Errorf("overlay.Send to %s: %w", to, err)
	}
	for {
		if o.canDirect(to) {
			err := o.sendDirect(ctx, to, frame)
			if err == nil || errors.Is(err, ErrClosed) {
				return err
			}
			o.stats.fallbacks.Add(1)
			o.log.Debug("overlay: direct send failed; using gossipsub", "peer", to, "err", err)
		}
		route, err := o.awaitRoute(ctx, to)
		if err != nil {
			return fmt.Errorf("overlay.Send to %s: %w", to, err)
		}
		if route == nil {
			continue // connected meanwhile: direct
		}
		if err := route.Publish(ctx, frame); err != nil {
			return fmt.Errorf("overlay.Send to %s on %s: %w", to, route.String(), err)
		}
		o.stats.published.Add(1)
		return nil
	}
}

// awaitRoute returns to's inbox topic once to subscribes there, nil once
// a direct stream may be tried, or the relay topic once the direct attempt
// has failed or timed out and the relay topic has a peer. The caller has
// just found that no direct stream may be tried.
func (o *Overlay) awaitRoute(ctx context.Context, to peer.ID) (*pubsub.Topic, error) {
	inbox, err := o.outTopic(to) // joined on first use: not for peers reached directly
	if err != nil {
		return nil, err
	}
	if isTopicPeer(inbox, to) {
		return inbox, nil
	}
	directCtx, cancel := context.WithTimeout(ctx, o.directBudget(ctx))
	defer cancel()
	dialed := make(chan error, 1)
	go func() { dialed <- o.dial(directCtx, to) }()
	direct, relayOK := directCtx.Done(), false
	tick := time.NewTicker(routePoll)
	defer tick.Stop()
	for {
		if o.canDirect(to) {
			return nil, nil
		}
		if isTopicPeer(inbox, to) {
			return inbox, nil
		}
		if relayOK && len(o.relay.ListPeers()) > 0 {
			return o.relay, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %w", ErrNoRoute, ctx.Err())
		case <-o.ctx.Done():
			return nil, ErrClosed
		case err := <-dialed:
			relayOK = relayOK || err != nil
		case <-direct:
			direct, relayOK = nil, true
		case <-tick.C:
		}
	}
}

// directBudget is how long Send waits for a direct route.
func (o *Overlay) directBudget(ctx context.Context) time.Duration {
	d := o.cfg.SendDirectWait
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)/2)
	}
	return d
}

// dial connects to p unless already connected, using the peerstore and, on
// a routed host, the DHT.
func (o *Overlay) dial(ctx context.Context, p peer.ID) error {
	if o.Connected(p) {
		return nil
	}
	if err := o.host.Connect(ctx, peer.AddrInfo{ID: p}); err != nil {
		return fmt.Errorf("dial %s: %w", p, err)
	}
	return nil
}
