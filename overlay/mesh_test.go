package overlay

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
)

// Test (1): three agents bootstrapped to one another form a mesh, see each
// other up through presence, and mark a stopped one down.
func TestMeshPresenceAndDown(t *testing.T) {
	a := startAgent(t, testConfig())
	cfgB := testConfig()
	cfgB.Bootstrap = []string{a.addr()}
	b := startAgent(t, cfgB)
	cfgC := testConfig()
	cfgC.Bootstrap = []string{a.addr(), b.addr()}
	c := startAgent(t, cfgC)

	var changes = make(chan *model.Peer, 64)
	a.o.OnPeerChange(func(p *model.Peer) {
		if p.PeerID == c.o.ID().String() {
			select {
			case changes <- p:
			default:
			}
		}
	})
	agents := []*agent{a, b, c}
	for _, x := range agents {
		for _, y := range agents {
			if x != y {
				waitFor(t, 15*time.Second, x.o.ID().String()+" sees "+y.o.ID().String(), func() bool { return x.seesUp(t, y.o.ID()) })
			}
		}
	}
	checkRow(t, b.row(t, a.o.ID()), FoundBootstrap)
	checkRow(t, a.row(t, b.o.ID()), FoundPresence) // B dialled A: A learnt of B from its presence
	if a.row(t, a.o.ID()) != nil {
		t.Error("an agent must not list itself")
	}

	if err := c.o.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*agent{a, b} {
		waitFor(t, 15*time.Second, "C marked down", func() bool {
			r := x.row(t, c.o.ID())
			return r != nil && r.State == model.PeerDown && !x.o.Up(c.o.ID())
		})
	}
	waitFor(t, 5*time.Second, "a down notification for C", func() bool {
		for {
			select {
			case p := <-changes:
				if p.State == model.PeerDown {
					return true
				}
			default:
				return false
			}
		}
	})
	if !a.seesUp(t, b.o.ID()) {
		t.Error("B should still be up")
	}
}

// checkRow checks a row announced by a test agent.
func checkRow(t *testing.T, r *model.Peer, via string) {
	t.Helper()
	if r == nil {
		t.Fatal("row missing")
	}
	if r.FoundVia != via || r.Version != "test" || r.Capacity != 2 || len(r.ScriptTypes) != 1 ||
		r.ScriptTypes[0] != "sh" || len(r.Addrs) == 0 || r.LastSeen == 0 {
		t.Errorf("row %+v: want found via %s and the announced info", r, via)
	}
}

// A restarted agent rejoins from its stored peer table, without bootstrap
// peers or mDNS (FoundVia "store").
func TestRejoinFromStore(t *testing.T) {
	a := startAgent(t, testConfig())
	cfgB := testConfig()
	cfgB.Bootstrap = []string{a.addr()}
	b := newAgent(t, cfgB)
	if err := b.o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "B sees A", func() bool { return b.seesUp(t, a.o.ID()) })

	// Agent D reuses B's store (as a restarted B would) but has no bootstrap.
	d := newAgentOnStore(t, b)
	waitFor(t, 15*time.Second, "D rejoins A from the store", func() bool { return d.seesUp(t, a.o.ID()) })
	if r := d.row(t, a.o.ID()); r.FoundVia != FoundStore {
		t.Errorf("found via %q, want store", r.FoundVia)
	}
}

// newAgentOnStore starts an agent without bootstrap on prev's store.
func newAgentOnStore(t *testing.T, prev *agent) *agent {
	t.Helper()
	if err := prev.o.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rows, err := prev.st.Registry.ListPeers(context.Background())
	if err != nil || len(rows) == 0 {
		t.Fatalf("stored rows %v, %v", rows, err)
	}
	a := &agent{st: prev.st}
	a.o = mustNew(t, testConfig(), prev.st.Registry)
	if err := a.o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return a
}
