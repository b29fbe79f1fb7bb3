package overlay

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
)

// freePort is a TCP port free on 127.0.0.1 a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A second agent on this machine given the port the first listens on
// fails to start, saying the address is in use; libp2p's port reuse would
// otherwise let both listen there and split the connections between them.
func TestSecondAgentOnATakenPortFails(t *testing.T) {
	cfg := testConfig()
	cfg.Listen = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", freePort(t))}
	first := startAgent(t, cfg)
	srv := newAgent(t, testConfig()) // its store, for the second overlay
	info := func() Info { return Info{} }
	o, err := New(context.Background(), cfg, newKey(t), srv.st.Registry, info, testLog())
	if err == nil {
		_ = o.Shutdown(context.Background())
		t.Fatalf("a second agent listens on %s beside %s", cfg.Listen[0], first.o.ID())
	}
	if !strings.Contains(err.Error(), "already in use") {
		t.Fatalf("error %q does not say the address is in use", err)
	}
}

// An agent whose port is free again after the one before it stopped (its
// connections may linger in TIME_WAIT) starts on it.
func TestAgentRestartsOnItsPort(t *testing.T) {
	cfg := testConfig()
	cfg.Listen = []string{fmt.Sprintf("/ip4/127.0.0.1/tcp/%d", freePort(t))}
	a := startAgent(t, cfg)
	b := startAgent(t, testConfig())
	if err := b.o.Host().Connect(context.Background(), a.o.Host().Peerstore().PeerInfo(a.o.ID())); err != nil {
		t.Fatal(err)
	}
	if err := a.o.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	startAgent(t, cfg)
}
