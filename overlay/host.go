package overlay

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/libp2p/go-libp2p"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	routedhost "github.com/libp2p/go-libp2p/p2p/host/routed"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	ma "github.com/multiformats/go-multiaddr"
)

// UserAgent is announced through identify.
const UserAgent = "hyphae"

// newHost builds the libp2p host on the actor key. When cfg.DHT is set the
// host is a routed host whose peer routing is the returned DHT.
//
// The DHT is built only once the host listens: it dials its bootstrap peers
// at once, and a dial made before the listeners exist leaves from a random
// port. Then the address the bootstrap peer observes is not the listen
// port's, libp2p learns no public address, and hole punching never starts.
// portMap is set when libp2p builds a port mapper (cfg.NATPortMap).
func newHost(ctx context.Context, cfg Config, priv crypto.PrivKey, log *slog.Logger, portMap *atomic.Bool) (host.Host, *dht.IpfsDHT, *connmgr.BasicConnMgr, error) {
	listen := listenAddrs(cfg, log)
	if err := checkListenFree(listen); err != nil {
		return nil, nil, nil, err
	}
	rm, err := newResourceManager()
	if err != nil {
		return nil, nil, nil, err
	}
	cm, err := connmgr.NewConnManager(cfg.ConnLow, cfg.ConnHigh)
	if err != nil {
		_ = rm.Close()
		return nil, nil, nil, fmt.Errorf("connection manager: %w", err)
	}
	h, err := libp2p.New(hostOptions(cfg, listen, priv, rm, cm, portMap)...)
	if err != nil {
		_ = rm.Close()
		_ = cm.Close()
		return nil, nil, nil, fmt.Errorf("libp2p host: %w", err)
	}
	if !cfg.DHT {
		return h, nil, cm, nil
	}
	kad, err := dht.New(ctx, h, dhtOptions(cfg)...)
	if err != nil {
		_ = h.Close()
		return nil, nil, nil, fmt.Errorf("dht: %w", err)
	}
	return routedhost.Wrap(h, kad), kad, cm, nil
}

// hostOptions are the libp2p options other than routing.
func hostOptions(cfg Config, listen []string, priv crypto.PrivKey, rm network.ResourceManager, cm *connmgr.BasicConnMgr, portMap *atomic.Bool) []libp2p.Option {
	opts := []libp2p.Option{
		libp2p.Identity(priv),
		libp2p.ListenAddrStrings(listen...),
		libp2p.ResourceManager(rm),
		libp2p.ConnectionManager(cm),
		libp2p.UserAgent(UserAgent),
	}
	if cfg.SwarmKey != nil {
		opts = append(opts, libp2p.PrivateNetwork(cfg.SwarmKey))
	}
	opts = append(opts, libp2p.ConnectionGater(newDialGater(cfg)))
	return append(opts, natOptions(cfg, portMap)...)
}

// listenAddrs returns cfg.Listen, without UDP transports when a swarm key is
// set: QUIC, WebTransport and WebRTC do not support private networks.
func listenAddrs(cfg Config, log *slog.Logger) []string {
	if cfg.SwarmKey == nil {
		return cfg.Listen
	}
	var out []string
	for _, s := range cfg.Listen {
		m, err := ma.NewMultiaddr(s)
		if err != nil {
			continue
		}
		if _, err := m.ValueForProtocol(ma.P_UDP); err == nil {
			log.Warn("overlay: swarm key set: QUIC/UDP does not support private networks, not listening there", "addr", s)
			continue
		}
		out = append(out, s)
	}
	return out
}
