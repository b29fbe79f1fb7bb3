package overlay

import (
	"errors"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/pnet"
	ma "github.com/multiformats/go-multiaddr"
)

// Defaults applied by New to zero fields of Config.
const (
	DefaultPresenceInterval = 3 * time.Second
	DefaultDownAfter        = 3
	DefaultMaxMessageSize   = 1 << 20
	DefaultSendDirectWait   = 3 * time.Second
	DefaultConnLow          = 100
	DefaultConnHigh         = 400
)

// Reachability overrides.
const (
	ReachPublic  = "public"
	ReachPrivate = "private"
	ReachAuto    = "auto" // the same as ""
)

// DefaultListen are the listen addresses used when Config.Listen is empty:
// TCP and QUIC on port 4001 on all interfaces.
var DefaultListen = []string{"/ip4/0.0.0.0/tcp/4001", "/ip4/0.0.0.0/udp/4001/quic-v1"}

// Config tunes an Overlay. The zero value of every field means its default.
type Config struct {
	Listen           []string      // multiaddrs; default DefaultListen
	Bootstrap        []string      // multiaddrs with /p2p/<id>, dialled and re-dialled with backoff
	MDNS             bool          // discover peers on the LAN with mDNS
	DHT              bool          // Kademlia DHT under /hyphae with rendezvous advertising
	SwarmKey         pnet.PSK      // 32-byte private network key; nil = public network (TCP only when set)
	RelayService     bool          // act as a circuit relay for others (public nodes)
	Relays           []string      // static relays (multiaddrs with /p2p/) for AutoRelay; default the bootstrap peers
	NATPortMap       bool          // UPnP / NAT-PMP port mapping
	PresenceInterval time.Duration // default 3s
	DownAfter        int           // missed presence intervals before a peer is down; default 3
	ForgetAfter      time.Duration // a peer down longer than this leaves the table; default 24h (forget.go)
	MaxMessageSize   int           // pubsub message size limit; default 1 MiB

	// Reachability overrides AutoNAT: "public" (a node with a public
	// address, e.g. a relay), "private" (behind a NAT: reserve a slot at
	// the relays at once) or "" / "auto": private when a relay (or,
	// without relays, a bootstrap peer) has a public address of an IP
	// family this machine has no public address of, public for a relay
	// service, else AutoNAT decides.
	Reachability string

	// SendDirectWait bounds how long Send waits for the recipient to become
	// a direct topic peer before it falls back to the relay topic (it also
	// never waits more than half of the caller's remaining deadline).
	SendDirectWait time.Duration
	// NoDirect sends every point-to-point frame through gossipsub (inbox
	// or relay topic) and refuses direct streams. By default a frame for a
	// peer this agent is connected to goes on a direct stream
	// (DirectProtocol), gossipsub being the fallback.
	NoDirect bool
	// ConnLow and ConnHigh are the connection manager's water marks
	// (default 100 and 400).
	ConnLow, ConnHigh int
	// Gater optionally refuses connections (block lists, tests).
	Gater connmgr.ConnectionGater
	// PubsubTracer optionally observes gossipsub internals (drops, RPC sizes).
	PubsubTracer pubsub.RawTracer
}

// withDefaults returns a copy of c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if len(c.Listen) == 0 {
		c.Listen = append([]string(nil), DefaultListen...)
	}
	if c.PresenceInterval <= 0 {
		c.PresenceInterval = DefaultPresenceInterval
	}
	if c.ForgetAfter <= 0 {
		c.ForgetAfter = DefaultForgetAfter
	}
	if c.DownAfter <= 0 {
		c.DownAfter = DefaultDownAfter
	}
	if c.MaxMessageSize <= 0 {
		c.MaxMessageSize = DefaultMaxMessageSize
	}
	if c.SendDirectWait <= 0 {
		c.SendDirectWait = DefaultSendDirectWait
	}
	if c.Reachability == ReachAuto {
		c.Reachability = ""
	}
	if c.ConnLow <= 0 {
		c.ConnLow = DefaultConnLow
	}
	if c.ConnHigh <= 0 {
		c.ConnHigh = DefaultConnHigh
	}
	return c
}

// Validate checks c after defaults are applied; it reports every problem.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	for _, s := range c.Listen {
		if _, err := ma.NewMultiaddr(s); err != nil {
			errs = append(errs, fmt.Errorf("listen %q: %w", s, err))
		}
	}
	for _, s := range c.Bootstrap {
		if _, err := peer.AddrInfoFromString(s); err != nil {
			errs = append(errs, fmt.Errorf("bootstrap %q (want /…/p2p/<peer id>): %w", s, err))
		}
	}
	for _, s := range c.Relays {
		if _, err := peer.AddrInfoFromString(s); err != nil {
			errs = append(errs, fmt.Errorf("relay %q (want /…/p2p/<peer id>): %w", s, err))
		}
	}
	if c.SwarmKey != nil && len(c.SwarmKey) != 32 {
		errs = append(errs, fmt.Errorf("swarm key: %d bytes, want 32", len(c.SwarmKey)))
	}
	if c.PresenceInterval < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("presence interval %v: below 10ms", c.PresenceInterval))
	}
	if c.MaxMessageSize < MaxPresenceSize {
		errs = append(errs, fmt.Errorf("max message size %d: below %d", c.MaxMessageSize, MaxPresenceSize))
	}
	if c.Reachability != "" && c.Reachability != ReachPublic && c.Reachability != ReachPrivate {
		errs = append(errs, fmt.Errorf("reachability %q: want public, private or auto", c.Reachability))
	}
	if c.ConnLow > c.ConnHigh {
		errs = append(errs, fmt.Errorf("connection low water %d above high water %d", c.ConnLow, c.ConnHigh))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("overlay config: %w", err)
	}
	return nil
}

// addrInfos parses multiaddrs with /p2p/ into AddrInfos, merging duplicates.
// Callers validate first.
func addrInfos(addrs []string) []peer.AddrInfo {
	var mas []ma.Multiaddr
	for _, s := range addrs {
		if m, err := ma.NewMultiaddr(s); err == nil {
			mas = append(mas, m)
		}
	}
	infos, _ := peer.AddrInfosFromP2pAddrs(mas...)
	return infos
}
