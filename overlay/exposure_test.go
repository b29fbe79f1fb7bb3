package overlay

import (
	"testing"

	"github.com/hyphae-run/hyphae/testkit/testnet"
)

// The agents tests start on the host run neither mDNS nor port mapping,
// and the overlay says so (the guard in mustNewKey reads the same).
func TestExposureOffOnTheHost(t *testing.T) {
	if _, ok := testnet.InLab(); ok {
		t.Skip("runs on the host")
	}
	a := startAgent(t, testConfig())
	if e := a.o.Exposure(); e != (Exposure{}) {
		t.Fatalf("exposure %+v, want none", e)
	}
}

// Exposure reports what runs: port mapping from New (libp2p built the
// mapper), mDNS from Start. In a network namespace of its own, where both
// may run without reaching the host's network.
func TestExposureReportsWhatRuns(t *testing.T) {
	if !testnet.RunInLab(t) {
		return
	}
	ip := multicastIPv4()
	if ip == "" {
		t.Fatal("no multicast interface in the Lab namespace")
	}
	cfg := testConfig()
	cfg.Listen, cfg.MDNS, cfg.NATPortMap = []string{"/ip4/" + ip + "/tcp/0"}, true, true
	a := newAgent(t, cfg)
	if e := a.o.Exposure(); e != (Exposure{PortMap: true}) {
		t.Fatalf("after New: %+v, want port mapping only", e)
	}
	if err := a.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if e := a.o.Exposure(); e != (Exposure{MDNS: true, PortMap: true}) {
		t.Fatalf("after Start: %+v, want both", e)
	}
	b := startAgent(t, testConfig())
	if e := b.o.Exposure(); e != (Exposure{}) {
		t.Fatalf("an agent without them: %+v, want none", e)
	}
}
