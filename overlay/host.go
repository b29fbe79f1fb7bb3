package overlay

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/libp2p/go-libp2p"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/routing"
	"github.com/libp2p/go-libp2p/p2p/net/connmgr"
	ma "github.com/multiformats/go-multiaddr"
)

// UserAgent is announced through identify.
const UserAgent = "hyphae"

// newHost builds the libp2p host on the actor key. When cfg.DHT is set the
// host is a routed host whose peer routing is the returned DHT.
func newHost(ctx context.Context, cfg Config, priv crypto.PrivKey, log *slog.Logger) (host.Host, *dht.IpfsDHT, *connmgr.BasicConnMgr, error) {
	rm, err := newResourceManager()
	if err != nil {
		return nil, nil, nil, err
	}
	cm, err := connmgr.NewConnManager(cfg.ConnLow, cfg.ConnHigh)
	if err != nil {
		_ = rm.Close()
		return nil, nil, nil, fmt.Errorf("connection manager: %w", err)
	}
	opts := hostOptions(cfg, priv, rm, cm, log)
	var kad *dht.IpfsDHT
	if cfg.DHT {
		opts = append(opts, libp2p.Routing(func(h host.Host) (routing.PeerRouting, error) {
			d, err := dht.New(ctx, h, dhtOptions(cfg)...)
			kad = d
			return d, err
		}))
	}
	h, err := libp2p.New(opts...)
	if err != nil {
		if kad != nil {
			_ = kad.Close()
		}
		_ = rm.Close()
		_ = cm.Close()
		return nil, nil, nil, fmt.Errorf("libp2p host: %w", err)
	}
	return h, kad, cm, nil
}

// hostOptions are the libp2p options other than routing.
func hostOptions(cfg Config, priv crypto.PrivKey, rm network.ResourceManager, cm *connmgr.BasicConnMgr, log *slog.Logger) []libp2p.Option {
	opts := []libp2p.Option{
		libp2p.Identity(priv),
		libp2p.ListenAddrStrings(listenAddrs(cfg, log)...),
		libp2p.ResourceManager(rm),
		libp2p.ConnectionManager(cm),
		libp2p.UserAgent(UserAgent),
	}
	if cfg.SwarmKey != nil {
		opts = append(opts, libp2p.PrivateNetwork(cfg.SwarmKey))
	}
	if cfg.Gater != nil {
		opts = append(opts, libp2p.ConnectionGater(cfg.Gater))
	}
	return append(opts, natOptions(cfg)...)
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
