package overlay

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/control"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// A message sent right after both agents start is not lost: Send waits
// until the recipient is a topic peer. The reply goes the same way.
func TestSendRightAfterStart(t *testing.T) {
	for _, noDirect := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "gossipsub"}[noDirect], func(t *testing.T) {
			sendRightAfterStart(t, noDirect)
		})
	}
}

func sendRightAfterStart(t *testing.T, noDirect bool) {
	cfgA := testConfig()
	cfgA.NoDirect = noDirect
	a := startAgent(t, cfgA)
	cfgB := cfgA
	cfgB.Bootstrap = []string{a.addr()}
	b := startAgent(t, cfgB)
	topic := map[bool]string{false: DirectTopic, true: InboxTopic(a.o.ID())}[noDirect]

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.o.Send(ctx, a.o.ID(), []byte("ping")); err != nil {
		t.Fatal(err)
	}
	got := recv(t, a, 10*time.Second)
	if string(got.Data) != "ping" || got.From != b.o.ID() || got.Topic != topic {
		t.Fatalf("got %+v", got)
	}
	if err := a.o.Send(ctx, b.o.ID(), []byte("pong")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, b, 10*time.Second); string(got.Data) != "pong" || got.From != a.o.ID() {
		t.Fatalf("got %+v", got)
	}
	// Identical payloads are distinct messages (retransmissions get through).
	for i := 0; i < 2; i++ {
		if err := b.o.Send(ctx, a.o.ID(), []byte("again")); err != nil {
			t.Fatal(err)
		}
		if got := recv(t, a, 10*time.Second); string(got.Data) != "again" {
			t.Fatalf("got %+v", got)
		}
	}
	if err := a.o.Send(ctx, a.o.ID(), []byte("me")); !errors.Is(err, ErrSelfSend) {
		t.Fatalf("self send: %v", err)
	}
	if err := a.o.Send(ctx, b.o.ID(), make([]byte, a.o.MaxPayload()+1)); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized send: %v", err)
	}
	expectNothing(t, a)
}

// With no direct connection possible between A and C (a connection gater
// refuses it both ways), Send falls back to the relay topic through B, and
// neither A's own frame nor frames for others reach an Inbox.
func TestSendViaRelayTopic(t *testing.T) {
	mesh := &meshTracer{}
	cfgB := testConfig()
	cfgB.PubsubTracer = mesh
	b := startAgent(t, cfgB)
	gA, gC := &blockGater{}, &blockGater{}
	cfgA, cfgC := testConfig(), testConfig()
	cfgA.Bootstrap, cfgC.Bootstrap = []string{b.addr()}, []string{b.addr()}
	cfgA.Gater, cfgC.Gater = gA, gC
	cfgA.SendDirectWait = 500 * time.Millisecond
	a, c := newAgent(t, cfgA), newAgent(t, cfgC)
	gA.block(c.o.ID())
	gC.block(a.o.ID())
	for _, x := range []*agent{a, c} {
		if err := x.o.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, 15*time.Second, "A sees C through B", func() bool { return a.seesUp(t, c.o.ID()) })
	// A frame B receives before C is in its relay mesh is lost (B grafts C
	// and then gossips only to non-mesh peers); the bridge's retransmission
	// covers that window in production, the test waits it out.
	waitFor(t, 15*time.Second, "B's relay mesh has A and C", func() bool {
		return mesh.inMesh(RelayTopic, a.o.ID()) && mesh.inMesh(RelayTopic, c.o.ID())
	})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := a.o.Send(ctx, c.o.ID(), []byte("via relay")); err != nil {
		t.Fatal(err)
	}
	t.Logf("relay send took %v", time.Since(start))
	got := recv(t, c, 10*time.Second)
	if string(got.Data) != "via relay" || got.From != a.o.ID() || got.Topic != RelayTopic {
		t.Fatalf("got %+v", got)
	}
	if err := c.o.Send(ctx, a.o.ID(), []byte("reply")); err != nil {
		t.Fatal(err)
	}
	if got := recv(t, a, 10*time.Second); string(got.Data) != "reply" || got.From != c.o.ID() {
		t.Fatalf("got %+v", got)
	}
	if a.o.Host().Network().Connectedness(c.o.ID()) == network.Connected {
		t.Fatal("A and C must not be directly connected")
	}
	expectNothing(t, a) // A's own relay frame did not loop back
	expectNothing(t, b) // B forwarded frames addressed to others without delivering them
}

// expectNothing checks that nothing else is queued in a's inbox.
func expectNothing(t *testing.T, a *agent) {
	t.Helper()
	select {
	case r := <-a.o.Inbox():
		t.Fatalf("%s: unexpected message %+v", a.o.ID(), r)
	default:
	}
}

// The inbox validator set by the caller decides on payloads for us; on
// gossipsub a rejected one lowers its sender's score (TestDirectStrikes
// covers direct streams).
func TestInboxValidator(t *testing.T) {
	cfgA := testConfig()
	cfgA.NoDirect = true
	a := startAgent(t, cfgA)
	cfgB := cfgA
	cfgB.Bootstrap = []string{a.addr()}
	b := startAgent(t, cfgB)
	a.o.SetInboxValidator(func(_ context.Context, from peer.ID, data []byte) (ValidationResult, any) {
		if from != b.o.ID() || string(data) == "bad" {
			return ValidationReject, nil
		}
		return ValidationAccept, "checked " + string(data)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, m := range []string{"bad", "good"} {
		if err := b.o.Send(ctx, a.o.ID(), []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if got := recv(t, a, 10*time.Second); string(got.Data) != "good" || got.Checked != "checked good" {
		t.Fatalf("got %q (checked %v)", got.Data, got.Checked)
	}
	waitFor(t, 10*time.Second, "B's score drops", func() bool {
		s, ok := a.o.PeerScore(b.o.ID())
		return ok && s < 0
	})
}

// blockGater refuses connections with the peers it blocks.
type blockGater struct {
	mu      sync.Mutex
	blocked map[peer.ID]bool // guarded by mu
}

func (g *blockGater) block(p peer.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.blocked == nil {
		g.blocked = map[peer.ID]bool{}
	}
	g.blocked[p] = true
}

func (g *blockGater) unblock(p peer.ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.blocked, p)
}

func (g *blockGater) allowed(p peer.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.blocked[p]
}

func (g *blockGater) InterceptPeerDial(p peer.ID) bool                 { return g.allowed(p) }
func (g *blockGater) InterceptAddrDial(p peer.ID, _ ma.Multiaddr) bool { return g.allowed(p) }
func (g *blockGater) InterceptAccept(network.ConnMultiaddrs) bool      { return true }
func (g *blockGater) InterceptSecured(_ network.Direction, p peer.ID, _ network.ConnMultiaddrs) bool {
	return g.allowed(p)
}
func (g *blockGater) InterceptUpgraded(network.Conn) (bool, control.DisconnectReason) {
	return true, 0
}
