package overlay

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/pnet"
	ma "github.com/multiformats/go-multiaddr"
)

// Test (4): only agents holding the same swarm key connect at all. An
// agent with another key, and one with none, bootstrap to A and never
// appear; B, with A's key, does.
func TestSwarmKeyKeepsOthersOut(t *testing.T) {
	key, other := newSwarmKey(t), newSwarmKey(t)

	cfgA := testConfig()
	cfgA.SwarmKey = key
	cfgA.Listen = append(cfgA.Listen, "/ip4/127.0.0.1/udp/0/quic-v1") // dropped: QUIC has no pnet
	a := startAgent(t, cfgA)
	for _, m := range a.o.Host().Addrs() {
		if _, err := m.ValueForProtocol(ma.P_UDP); err == nil {
			t.Fatalf("listening on %s with a swarm key", m)
		}
	}
	outsiders := []*agent{}
	for _, k := range [][]byte{other, nil} {
		cfg := testConfig()
		cfg.SwarmKey, cfg.Bootstrap = k, []string{a.addr()}
		outsiders = append(outsiders, startAgent(t, cfg))
	}
	cfgB := testConfig()
	cfgB.SwarmKey, cfgB.Bootstrap = key, []string{a.addr()}
	b := startAgent(t, cfgB)
	waitFor(t, 15*time.Second, "A and B see each other", func() bool {
		return a.seesUp(t, b.o.ID()) && b.seesUp(t, a.o.ID())
	})

	info, _ := peer.AddrInfoFromString(a.addr())
	for _, x := range outsiders {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		err := x.o.Host().Connect(ctx, *info)
		cancel()
		if err == nil {
			t.Errorf("an agent without A's key connected to A")
		}
		if a.o.Host().Network().Connectedness(x.o.ID()) == network.Connected {
			t.Errorf("A is connected to an outsider")
		}
		if a.row(t, x.o.ID()) != nil || x.row(t, a.o.ID()) != nil {
			t.Errorf("an outsider appears in a peer table")
		}
	}
}

// newSwarmKey makes a private-network key as `hyphae init --swarm-key` does.
func newSwarmKey(t testing.TB) pnet.PSK {
	t.Helper()
	psk, err := pnet.DecodeV1PSK(bytes.NewReader(identity.GenerateSwarmKey()))
	if err != nil {
		t.Fatal(err)
	}
	return psk
}
