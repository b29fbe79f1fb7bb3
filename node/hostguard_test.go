package node_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// guardConfig fails t when cfg (after Defaults) has mDNS or port mapping
// on for an agent on the host (testnet.Guard; a testnet.Lab may).
func guardConfig(t testing.TB, cfg *config.Config) {
	t.Helper()
	on := func(b *bool) bool { return b == nil || *b } // nil: the default, on
	testnet.Guard(t, "agent config "+cfg.DataDir, testnet.Exposure{MDNS: on(cfg.Overlay.MDNS), PortMap: on(cfg.Overlay.NATPortMap)})
}

// guardNode fails t when n's overlay runs mDNS or port mapping on the host.
func guardNode(t testing.TB, n *node.Node) {
	t.Helper()
	guardOverlay(t, "agent "+n.ID().PeerID().String(), n.Exposure())
}

// guardOverlay is guardNode for an overlay a test builds itself.
func guardOverlay(t testing.TB, who string, e overlay.Exposure) {
	t.Helper()
	testnet.Guard(t, who, testnet.Exposure{MDNS: e.MDNS, PortMap: e.PortMap})
}

// The in-process agents of these tests run neither mDNS nor port mapping,
// and node.info says so.
func TestHostAgentsRunNoMDNSNorPortMapping(t *testing.T) {
	t.Parallel()
	if _, ok := testnet.InLab(); ok {
		t.Skip("runs on the host")
	}
	a := startAgent(t, agentOpts{})
	if e := a.Exposure(); e != (overlay.Exposure{}) {
		t.Fatalf("exposure %+v, want none", e)
	}
	var info wire.InfoView
	a.call(t, "node.info", nil, &info)
	if info.MDNS || info.NATPortMap {
		t.Fatalf("node.info: mdns %v, nat_port_map %v; want both off", info.MDNS, info.NATPortMap)
	}
}

// With the defaults (mDNS and port mapping on) node.info reports both
// running; in a network namespace of its own, where they reach nothing.
func TestInfoReportsMDNSAndPortMapping(t *testing.T) {
	t.Parallel()
	if !testnet.RunInLab(t) {
		return
	}
	a := startAgent(t, agentOpts{lan: true})
	var info wire.InfoView
	a.call(t, "node.info", nil, &info)
	if !info.MDNS || !info.NATPortMap {
		t.Fatalf("node.info: mdns %v, nat_port_map %v; want both on", info.MDNS, info.NATPortMap)
	}
}
