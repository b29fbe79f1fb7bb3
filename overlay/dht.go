package overlay

import (
	"context"
	"time"

	dht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/discovery"
	drouting "github.com/libp2p/go-libp2p/p2p/discovery/routing"
)

// DHT settings.
const (
	DHTProtocolPrefix  = "/hyphae"
	RendezvousNS       = "hyphae/1/agents"
	findIntervalMin    = time.Second
	findIntervalMax    = time.Minute
	advertiseRetryMin  = time.Second
	advertiseRetryMax  = 2 * time.Minute
	rendezvousMaxPeers = 200
	findTimeout        = 30 * time.Second
)

// dhtOptions: our own protocol prefix; server mode when the configuration
// says we are publicly reachable, else auto-server (server unless AutoNAT
// finds us behind a NAT), so a LAN-only cluster still has DHT servers.
func dhtOptions(cfg Config) []dht.Option {
	mode := dht.ModeAutoServer
	if publiclyReachable(cfg) {
		mode = dht.ModeServer
	}
	return []dht.Option{
		dht.ProtocolPrefix(DHTProtocolPrefix),
		dht.Mode(mode),
		dht.BootstrapPeers(addrInfos(cfg.Bootstrap)...),
	}
}

// startDHT bootstraps the DHT and runs rendezvous advertising and lookup.
func (o *Overlay) startDHT() {
	if err := o.kad.Bootstrap(o.ctx); err != nil {
		o.log.Warn("overlay: dht bootstrap", "err", err)
	}
	rd := drouting.NewRoutingDiscovery(o.kad)
	o.spawn(func() { o.advertiseLoop(rd) })
	o.spawn(func() { o.findLoop(rd) })
}

// advertiseLoop keeps our rendezvous record in the DHT. Unlike
// util.Advertise (2 minutes after any failure) it retries quickly while
// the routing table is still empty at start-up.
func (o *Overlay) advertiseLoop(rd *drouting.RoutingDiscovery) {
	retry := advertiseRetryMin
	for {
		wait := retry
		if o.kad.RoutingTable().Size() > 0 {
			ttl, err := rd.Advertise(o.ctx, RendezvousNS)
			if err == nil {
				wait, retry = 7*ttl/8, advertiseRetryMin
			} else {
				o.log.Debug("overlay: dht advertise", "err", err)
				retry = min(2*retry, advertiseRetryMax)
			}
		}
		if !o.sleep(wait) {
			return
		}
	}
}

// findLoop looks up other agents at the rendezvous point, often at first
// and then every minute, and connects to the ones not yet connected.
func (o *Overlay) findLoop(rd *drouting.RoutingDiscovery) {
	interval := findIntervalMin
	sem := make(chan struct{}, maxParallelDial)
	for o.sleep(interval) {
		interval = min(2*interval, findIntervalMax)
		if o.kad.RoutingTable().Size() == 0 {
			continue
		}
		o.findOnce(rd, sem)
	}
}

// findOnce runs one rendezvous lookup.
func (o *Overlay) findOnce(rd *drouting.RoutingDiscovery, sem chan struct{}) {
	ctx, cancel := context.WithTimeout(o.ctx, findTimeout)
	defer cancel()
	found, err := rd.FindPeers(ctx, RendezvousNS, discovery.Limit(rendezvousMaxPeers))
	if err != nil {
		o.log.Debug("overlay: dht find peers", "err", err)
		return
	}
	for pi := range found {
		if pi.ID != o.id && len(pi.Addrs) > 0 && !o.Connected(pi.ID) {
			o.connectAsync(sem, pi, FoundDHT)
		}
	}
}
