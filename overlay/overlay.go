package overlay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/lifecycle"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	ma "github.com/multiformats/go-multiaddr"
)

// PeerTable is where the overlay keeps the live peer table (Redis DB 0 in
// the agent; the store's Registry satisfies it).
type PeerTable interface {
	SavePeer(ctx context.Context, p *model.Peer) error
	LoadPeer(ctx context.Context, peerID string) (*model.Peer, error)
	ListPeers(ctx context.Context) ([]*model.Peer, error)
}

// Info is what the agent announces about itself in presence records.
type Info struct {
	Roles, ScriptTypes []string
	Capacity, Load     int64
	Version            string
}

// Overlay is one agent's place on the libp2p overlay. Create it with New,
// then Start it; Shutdown releases everything.
type Overlay struct {
	cfg     Config
	id      peer.ID
	peers   PeerTable
	info    func() Info
	log     *slog.Logger
	started time.Time

	host host.Host
	kad  *dht.IpfsDHT // nil without cfg.DHT
	cm   *connmgr.BasicConnMgr
	ps   *pubsub.PubSub

	presence, relay, inbox *pubsub.Topic
	received               chan Received
	validator              atomic.Pointer[InboxValidator]
	announce               chan struct{} // capacity 1: a pending announcement
	table                  *liveTable
	direct                 *directState
	conduct                *conduct // refusals per peer: score and rate limit
	stats                  frameCounters

	// life runs from New (the host is built on its context) to Shutdown;
	// ctx is its context, cancelled by Shutdown, parent of every loop.
	life lifecycle.Group
	ctx  context.Context

	mu        sync.Mutex
	running   bool                      // guarded by mu
	closed    bool                      // guarded by mu; set as Shutdown begins
	closeErr  error                     // guarded by mu
	outTopics map[peer.ID]*pubsub.Topic // guarded by mu
	scores    map[peer.ID]float64       // guarded by mu
	stopMDNS  func() error              // guarded by mu
	mdns      *mdnsNotifee              // nil without mDNS; guarded by mu
	mdnsOff   string                    // why mDNS, asked for, does not run (mdns.go); guarded by mu
	portMap   atomic.Bool               // libp2p built a UPnP / NAT-PMP port mapper (exposure.go)
	answers   newcomerAnswers           // coalesces the answers to newcomers (newcomer.go)
}

// New builds the host on the actor key priv, the gossipsub router and the
// topics. Nothing is announced or dialled until Start.
func New(ctx context.Context, cfg Config, priv crypto.PrivKey, peers PeerTable, info func() Info, log *slog.Logger) (*Overlay, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if priv == nil || peers == nil || info == nil || log == nil {
		return nil, errors.New("overlay.New: nil key, peer table, info or logger")
	}
	cfg = cfg.withDefaults()
	o := &Overlay{
		cfg: cfg, peers: peers, info: info, log: log, started: time.Now(),
		received:  make(chan Received, 256),
		announce:  make(chan struct{}, 1),
		table:     newLiveTable(),
		direct:    newDirectState(),
		conduct:   newConduct(),
		outTopics: make(map[peer.ID]*pubsub.Topic),
		scores:    make(map[peer.ID]float64),
	}
	o.ctx, _ = o.life.Start(context.WithoutCancel(ctx)) // a new Group starts
	if err := o.build(priv); err != nil {
		o.life.Stop()
		o.release()
		return nil, fmt.Errorf("overlay.New: %w", err)
	}
	return o, nil
}

// build creates host, pubsub and topics; on error the caller releases.
func (o *Overlay) build(priv crypto.PrivKey) error {
	h, kad, cm, err := newHost(o.ctx, o.cfg, priv, o.log, &o.portMap)
	if err != nil {
		return err
	}
	o.host, o.kad, o.cm, o.id = h, kad, cm, h.ID()
	if o.ps, err = newPubSub(o.ctx, h, o.cfg, InboxTopic(o.id), o.conduct.score, o.setScores, o.log); err != nil {
		return err
	}
	if !o.cfg.NoDirect {
		h.SetStreamHandler(DirectProtocol, o.handleDirect)
		h.Network().Notify(&network.NotifyBundle{ConnectedF: o.direct.connected})
	}
	h.Network().Notify(&network.NotifyBundle{ConnectedF: o.directOpened})
	return o.joinTopics()
}

// Start subscribes to the topics and starts presence and discovery.
func (o *Overlay) Start(ctx context.Context) error {
	o.mu.Lock()
	closed, running := o.closed, o.running
	o.running = true
	o.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if running {
		return errors.New("overlay.Start: already started")
	}
	if err := o.startBus(); err != nil {
		return fmt.Errorf("overlay.Start: %w", err)
	}
	stored := o.loadTable(ctx)
	o.startPresence()
	if err := o.startDiscovery(stored); err != nil {
		return fmt.Errorf("overlay.Start: %w", err)
	}
	o.log.Info("overlay started", "peer_id", o.id, "addrs", o.Addrs())
	return nil
}

// Shutdown stops every loop and closes the host. It is safe to call more
// than once; later calls return the first call's result.
func (o *Overlay) Shutdown(ctx context.Context) error {
	o.mu.Lock()
	if o.closed {
		err := o.closeErr
		o.mu.Unlock()
		return err
	}
	o.closed = true
	stopMDNS := o.stopMDNS
	o.mu.Unlock()

	o.life.Stop() // no loop starts from now on; o.ctx ends
	var errs []error
	if stopMDNS != nil {
		errs = append(errs, stopMDNS())
	}
	if err := o.waitLoops(ctx); err != nil {
		errs = append(errs, err)
	} else {
		close(o.received)
	}
	errs = append(errs, o.release())
	err := errors.Join(errs...)
	if err != nil {
		err = fmt.Errorf("overlay.Shutdown: %w", err)
	}
	o.mu.Lock()
	o.closeErr = err
	o.mu.Unlock()
	return err
}

// waitLoops waits for every goroutine started by the overlay, up to ctx.
func (o *Overlay) waitLoops(ctx context.Context) error {
	if err := o.life.Wait(ctx); err != nil {
		return fmt.Errorf("waiting for overlay loops: %w", err)
	}
	return nil
}

// release closes the DHT and the host (which closes pubsub streams, the
// connection manager and the resource manager).
func (o *Overlay) release() error {
	var errs []error
	if o.kad != nil {
		errs = append(errs, o.kad.Close())
	}
	if o.host != nil {
		errs = append(errs, o.host.Close())
	}
	return errors.Join(errs...)
}

// spawn runs f in a goroutine tracked by Shutdown, unless shutting down.
func (o *Overlay) spawn(f func()) bool {
	return o.life.Go(func(context.Context) { f() })
}

// track counts the calling goroutine as one Shutdown waits for, unless
// shutting down (then it reports false); it calls untrack when done.
func (o *Overlay) track() bool { return o.life.Enter() }

// untrack ends what track counted.
func (o *Overlay) untrack() { o.life.Leave() }

// ID is the agent's peer ID (= actor public key).
func (o *Overlay) ID() peer.ID { return o.id }

// Host is the libp2p host.
func (o *Overlay) Host() host.Host { return o.host }

// Addrs are the host's addresses, each ending in /p2p/<id>.
func (o *Overlay) Addrs() []ma.Multiaddr {
	out, _ := peer.AddrInfoToP2pAddrs(&peer.AddrInfo{ID: o.id, Addrs: o.host.Addrs()})
	return out
}

// Protect keeps connections to p open while tag is set (peers with work in
// flight); Unprotect reports whether p is still protected by another tag.
func (o *Overlay) Protect(p peer.ID, tag string) { o.cm.Protect(p, tag) }

// Unprotect removes a Protect tag.
func (o *Overlay) Unprotect(p peer.ID, tag string) bool { return o.cm.Unprotect(p, tag) }

// sleep waits d or until shutdown; it reports whether to go on.
func (o *Overlay) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-o.ctx.Done():
		return false
	}
}
