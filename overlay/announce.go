package overlay

import (
	"time"

	"github.com/libp2p/go-libp2p/core/peer"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/event"
)

// joinAnnounceWait bounds how long a join waits to become announceable.
const joinAnnounceWait = 5 * time.Second

// AnnounceNow publishes a presence record at once (coalesced with any
// announcement already pending). Call it when Info changes.
func (o *Overlay) AnnounceNow() {
	select {
	case o.announce <- struct{}{}:
	default:
	}
}

// startPresence starts the announcer, the presence reader and the table
// loop, plus the triggers for early announcements.
func (o *Overlay) startPresence() {
	records := make(chan *presenceRecord, subscriptionBuffer)
	sub, err := o.presence.Subscribe(pubsub.WithBufferSize(subscriptionBuffer))
	if err != nil {
		o.log.Error("overlay: presence subscribe", "err", err)
	} else {
		o.spawn(func() { o.readPresence(sub, records) })
	}
	o.spawn(func() { o.tableLoop(records) })
	o.spawn(o.announceLoop)
	o.spawn(o.announceOnJoin)
	o.spawn(o.announceOnAddrChange)
}

// announceLoop publishes a record every PresenceInterval and on demand.
func (o *Overlay) announceLoop() {
	tick := time.NewTicker(o.cfg.PresenceInterval)
	defer tick.Stop()
	var seq uint64
	for {
		seq = max(seq+1, uint64(time.Now().UnixMilli()))
		o.publishPresence(seq)
		select {
		case <-o.ctx.Done():
			return
		case <-tick.C:
		case <-o.announce:
		}
	}
}

// publishPresence publishes one record; losses are repaired by the next.
func (o *Overlay) publishPresence(seq uint64) {
	data, err := o.record(seq)
	if err == nil {
		err = o.presence.Publish(o.ctx, data)
	}
	if err != nil && o.ctx.Err() == nil {
		o.log.Warn("overlay: publish presence", "err", err)
	}
}

// announceOnJoin announces when a peer joins the presence topic, so a
// newcomer learns about us without waiting a full interval. A PeerJoin
// event can precede the router's outbound queue for that peer, and a
// message published then never reaches it; so the announcement waits
// until the peer is listed by ListPeers (which only lists peers with a
// queue).
func (o *Overlay) announceOnJoin() {
	h, err := o.presence.EventHandler()
	if err != nil {
		o.log.Warn("overlay: presence events", "err", err)
		return
	}
	defer h.Cancel()
	for {
		ev, err := h.NextPeerEvent(o.ctx)
		if err != nil {
			return
		}
		if ev.Type == pubsub.PeerJoin {
			o.spawn(func() { o.announceWhenListed(ev.Peer) })
		}
	}
}

// announceWhenListed announces once p is a listed presence topic peer.
func (o *Overlay) announceWhenListed(p peer.ID) {
	deadline := time.Now().Add(joinAnnounceWait)
	for !isTopicPeer(o.presence, p) {
		if time.Now().After(deadline) || !o.sleep(routePoll) {
			return
		}
	}
	o.AnnounceNow()
}

// announceOnAddrChange announces when our listen addresses change (new
// relay address, port mapping, interface up).
func (o *Overlay) announceOnAddrChange() {
	sub, err := o.host.EventBus().Subscribe(new(event.EvtLocalAddressesUpdated))
	if err != nil {
		o.log.Warn("overlay: address events", "err", err)
		return
	}
	defer sub.Close()
	for {
		select {
		case <-o.ctx.Done():
			return
		case <-sub.Out():
			o.AnnounceNow()
		}
	}
}

// readPresence hands other agents' accepted records to the table loop.
func (o *Overlay) readPresence(sub *pubsub.Subscription, out chan<- *presenceRecord) {
	defer sub.Cancel()
	for {
		m, err := sub.Next(o.ctx)
		if err != nil {
			return
		}
		r, ok := m.ValidatorData.(*presenceRecord)
		if !ok || m.GetFrom() == o.id {
			continue
		}
		select {
		case out <- r:
		case <-o.ctx.Done():
			return
		}
	}
}
