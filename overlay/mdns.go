package overlay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/pnet"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
)

// MDNSService is the DNS-SD service name agents of the public network
// announce on the LAN. Agents with a swarm key announce under a name
// derived from the key (see mdnsServiceName), so fleets sharing a LAN
// do not dial each other only to fail the private-network handshake.
const MDNSService = "_hyphae._udp"

// mDNS dial retries. The mDNS client reports a peer once per record
// lifetime (about an hour), so a dial that fails then — the peer still
// starting, a busy machine — is retried here or not at all.
const (
	mdnsRetryFirst = 500 * time.Millisecond
	mdnsRetryMax   = 8 * time.Second
	mdnsAttempts   = 6 // about 30 s of trying, dial timeouts aside
)

// mdnsServiceName is MDNSService without a swarm key, and
// "_hyphae-<8 hex>._udp" with one (a hash of the key, not the key).
func mdnsServiceName(key pnet.PSK) string {
	if key == nil {
		return MDNSService
	}
	sum := sha256.Sum256(append([]byte("hyphae mdns service\x00"), key...))
	return "_hyphae-" + hex.EncodeToString(sum[:4]) + "._udp"
}

// mdnsNotifee connects to peers found on the LAN, retrying failed dials
// with backoff, one retry loop per peer at a time.
type mdnsNotifee struct {
	o   *Overlay
	sem chan struct{} // bounds dials in flight

	mu      sync.Mutex
	dialing map[peer.ID]bool // guarded by mu
	found   int              // peers reported by mDNS; guarded by mu
	failed  int              // failed dials; guarded by mu
	lastErr error            // guarded by mu
}

// HandlePeerFound implements mdns.Notifee.
func (n *mdnsNotifee) HandlePeerFound(pi peer.AddrInfo) {
	if pi.ID == n.o.id {
		return
	}
	n.mu.Lock()
	n.found++
	busy := n.dialing[pi.ID]
	n.dialing[pi.ID] = true
	n.mu.Unlock()
	if busy {
		return
	}
	if !n.o.spawn(func() { n.dialLoop(pi) }) {
		n.done(pi.ID)
	}
}

// dialLoop dials pi until it connects, the attempts run out or the
// overlay shuts down.
func (n *mdnsNotifee) dialLoop(pi peer.AddrInfo) {
	defer n.done(pi.ID)
	wait := mdnsRetryFirst
	for attempt := 1; ; attempt++ {
		err := n.o.connectBounded(n.sem, pi, FoundMDNS)
		if err == nil {
			return
		}
		n.mu.Lock()
		n.failed++
		n.lastErr = err
		n.mu.Unlock()
		n.o.log.Debug("overlay: mdns dial failed", "peer", pi.ID, "attempt", attempt, "err", err)
		if attempt == mdnsAttempts {
			n.o.log.Info("overlay: peer found by mdns but not reachable; waiting for it to announce again",
				"peer", pi.ID, "attempts", attempt, "err", err)
			return
		}
		if !n.o.sleep(wait) {
			return
		}
		wait = min(2*wait, mdnsRetryMax)
	}
}

func (n *mdnsNotifee) done(id peer.ID) {
	n.mu.Lock()
	delete(n.dialing, id)
	n.mu.Unlock()
}

// MDNSStats says what mDNS discovery has done so far: peers reported,
// failed dials and the last dial error. All zero without mDNS.
type MDNSStats struct {
	Found, Failed int
	LastErr       error
}

// stats reads n's counters.
func (n *mdnsNotifee) stats() MDNSStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	return MDNSStats{Found: n.found, Failed: n.failed, LastErr: n.lastErr}
}

// MDNSStats reports what mDNS discovery has done so far.
func (o *Overlay) MDNSStats() MDNSStats {
	o.mu.Lock()
	n := o.mdns
	o.mu.Unlock()
	if n == nil {
		return MDNSStats{}
	}
	return n.stats()
}

// MDNSOffNoInterface is why mDNS, asked for, does not run on a machine
// none of whose interfaces can multicast: a container or a network
// namespace with only loopback (Linux lo has no multicast flag).
const MDNSOffNoInterface = "no network interface can multicast (only loopback?)"

// multicastInterfaces reports whether an interface of this machine is up
// and can multicast: those are the ones mDNS (zeroconf) joins.
func multicastInterfaces() (bool, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return false, err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp != 0 && i.Flags&net.FlagMulticast != 0 {
			return true, nil
		}
	}
	return false, nil
}

// MDNSOff says why mDNS, asked for by the config, does not run (the
// agent started without it), or "" when it runs or was not asked for.
func (o *Overlay) MDNSOff() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.mdnsOff
}

// noMDNS records why mDNS does not run and warns once: the agent goes on
// without it, finding peers by bootstrap addresses, the table and the DHT.
func (o *Overlay) noMDNS(why string) {
	o.mu.Lock()
	o.mdnsOff = why
	o.mu.Unlock()
	o.log.Warn("overlay: mDNS is off: "+why+"; peers on the LAN are not found by mDNS. "+
		"Give agents to dial with --bootstrap <multiaddr> (hyphae id prints one), or pass --no-mdns to say mDNS is meant to be off",
		"reason", why)
}

// startMDNS announces this agent on the LAN and connects to others. With
// no interface that can multicast it starts nothing and warns (noMDNS).
func (o *Overlay) startMDNS() error {
	if ok, err := multicastInterfaces(); err == nil && !ok {
		o.noMDNS(MDNSOffNoInterface)
		return nil
	}
	n := &mdnsNotifee{o: o, sem: make(chan struct{}, maxParallelDial), dialing: map[peer.ID]bool{}}
	svc := mdns.NewMdnsService(o.host, mdnsServiceName(o.cfg.SwarmKey), n)
	if err := svc.Start(); err != nil {
		// zeroconf found multicast interfaces but could join none of them.
		if strings.Contains(err.Error(), "no supported interface") {
			o.noMDNS("no network interface can join the mDNS multicast group (" + err.Error() + ")")
			return nil
		}
		return fmt.Errorf("mdns: %w", err)
	}
	o.mu.Lock()
	closed := o.closed
	if !closed {
		o.stopMDNS, o.mdns = svc.Close, n
	}
	o.mu.Unlock()
	if closed {
		_ = svc.Close()
	}
	return nil
}
