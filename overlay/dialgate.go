package overlay

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/connmgr"
	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// localNetsTTL is how long the list of networks reachable from here is
// kept before it is read again (interfaces and routes change, e.g. on a
// laptop that moves).
const localNetsTTL = 5 * time.Second

// dialGater keeps libp2p from dialling private addresses that cannot be
// reached from this machine: an agent announces the addresses of its own
// LAN (192.168.x, 10.x, …), and an agent at another site dialling them
// waits for a timeout, since the packets go out of its default route and
// are dropped on the internet. A private address is dialled only when it
// lies in a network of one of this machine's interfaces or of a route
// other than the default one (a VPN, a routed LAN), or is the address of a
// configured bootstrap peer or relay. Loopback and public addresses are
// always dialled. Everything else is left to the configured gater.
type dialGater struct {
	next     connmgr.ConnectionGater // nil: allow
	explicit map[string]bool         // IPs of configured bootstrap peers and relays
	read     func() []*net.IPNet     // this machine's networks

	mu    sync.Mutex
	nets  []*net.IPNet // guarded by mu
	since time.Time    // when nets was read; guarded by mu
}

// newDialGater wraps cfg.Gater.
func newDialGater(cfg Config) *dialGater {
	g := &dialGater{next: cfg.Gater, explicit: map[string]bool{}, read: localNets}
	for _, pi := range addrInfos(append(append([]string(nil), cfg.Bootstrap...), cfg.Relays...)) {
		for _, a := range pi.Addrs {
			if ip := firstIP(a); ip != nil {
				g.explicit[ip.String()] = true
			}
		}
	}
	return g
}

// reachable reports whether a dial to a may get through from here.
func (g *dialGater) reachable(a ma.Multiaddr) bool {
	ip := firstIP(a)
	if ip == nil || ip.IsLoopback() || !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !isSharedIPv4(ip) {
		return true
	}
	if g.explicit[ip.String()] {
		return true
	}
	for _, n := range g.localNets() {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// localNets returns this machine's networks, read at most every localNetsTTL.
func (g *dialGater) localNets() []*net.IPNet {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.nets == nil || time.Since(g.since) > localNetsTTL {
		g.nets, g.since = g.read(), time.Now()
	}
	return g.nets
}

// firstIP is the IP a multiaddr starts with, or nil (DNS names, …).
func firstIP(a ma.Multiaddr) net.IP {
	if len(a) == 0 {
		return nil
	}
	switch c := a[0]; c.Protocol().Code {
	case ma.P_IP4, ma.P_IP6:
		return net.IP(c.RawValue())
	}
	return nil
}

// shared is 100.64.0.0/10, the carrier-grade NAT range (RFC 6598).
var shared = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

func isSharedIPv4(ip net.IP) bool { return shared.Contains(ip) }

// localNets are the networks of this machine's interfaces and of its
// routes other than the default ones.
func localNets() []*net.IPNet {
	var out []*net.IPNet
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				out = append(out, n)
			}
		}
	}
	return append(out, routedNets("/proc/net/route")...)
}

// routedNets reads the IPv4 routes with a non-zero mask from a Linux
// /proc/net/route file (none where there is no such file).
func routedNets(path string) []*net.IPNet {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []*net.IPNet
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Iface Destination Gateway Flags RefCnt Use Metric Mask …
		fs := strings.Fields(sc.Text())
		if len(fs) < 8 || fs[0] == "Iface" {
			continue
		}
		dst, err1 := hex.DecodeString(fs[1])
		mask, err2 := hex.DecodeString(fs[7])
		flags, err3 := hex.DecodeString(fs[3])
		if err1 != nil || err2 != nil || err3 != nil || len(dst) != 4 || len(mask) != 4 || len(flags) != 2 {
			continue
		}
		const up, reject = 0x1, 0x200
		fl := binary.BigEndian.Uint16(flags)
		m := binary.LittleEndian.Uint32(mask)
		if m == 0 || fl&up == 0 || fl&reject != 0 {
			continue
		}
		ip := net.IPv4(dst[3], dst[2], dst[1], dst[0])
		out = append(out, &net.IPNet{IP: ip.To4(), Mask: net.IPMask{mask[3], mask[2], mask[1], mask[0]}})
	}
	return out
}

// InterceptAddrDial refuses private addresses not reachable from here.
func (g *dialGater) InterceptAddrDial(p peer.ID, a ma.Multiaddr) bool {
	if !g.reachable(a) {
		return false
	}
	return g.next == nil || g.next.InterceptAddrDial(p, a)
}

// InterceptPeerDial defers to the configured gater.
func (g *dialGater) InterceptPeerDial(p peer.ID) bool {
	return g.next == nil || g.next.InterceptPeerDial(p)
}

// InterceptAccept defers to the configured gater.
func (g *dialGater) InterceptAccept(c network.ConnMultiaddrs) bool {
	return g.next == nil || g.next.InterceptAccept(c)
}

// InterceptSecured defers to the configured gater.
func (g *dialGater) InterceptSecured(d network.Direction, p peer.ID, c network.ConnMultiaddrs) bool {
	return g.next == nil || g.next.InterceptSecured(d, p, c)
}

// InterceptUpgraded defers to the configured gater.
func (g *dialGater) InterceptUpgraded(c network.Conn) (bool, control.DisconnectReason) {
	if g.next == nil {
		return true, 0
	}
	return g.next.InterceptUpgraded(c)
}
