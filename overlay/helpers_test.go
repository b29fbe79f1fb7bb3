package overlay

import (
	"context"
	"crypto/rand"
	"log/slog"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/testkit/testnet"
	"github.com/hyphae-run/hyphae/testkit/testredis"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// testLog logs to stderr at HYPHAE_TEST_LOG (debug, info; default warn).
func testLog() *slog.Logger {
	level := slog.LevelWarn
	switch os.Getenv("HYPHAE_TEST_LOG") {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

// agent is one in-process agent with its own redis-server.
type agent struct {
	o  *Overlay
	st *store.Store
}

// testConfig listens on loopback only, with fast presence; mDNS and port
// mapping are off (the zero value), as every agent a test starts on the
// host must have them (mustNewKey fails the test otherwise).
func testConfig() Config {
	return Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, PresenceInterval: 200 * time.Millisecond}
}

// newAgent builds (not starts) an agent; it is shut down at test end.
func newAgent(t testing.TB, cfg Config) *agent {
	t.Helper()
	return newAgentKey(t, cfg, newKey(t))
}

// newAgentKey is newAgent on the key priv (an agent that restarts).
func newAgentKey(t testing.TB, cfg Config, priv crypto.PrivKey) *agent {
	t.Helper()
	srv := testredis.Start(t)
	ctx := context.Background()
	st, err := store.Open(ctx, srv.URL, testLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &agent{o: mustNewKey(t, cfg, st.Registry, priv), st: st}
}

// mustNew builds an overlay with a fresh key on st, shut down at test end.
func mustNew(t testing.TB, cfg Config, st PeerTable) *Overlay {
	t.Helper()
	return mustNewKey(t, cfg, st, newKey(t))
}

// newKey is a fresh actor key.
func newKey(t testing.TB) crypto.PrivKey {
	t.Helper()
	priv, _, err := crypto.GenerateEd25519Key(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// mustNewKey is mustNew on the key priv (an agent that restarts).
func mustNewKey(t testing.TB, cfg Config, st PeerTable, priv crypto.PrivKey) *Overlay {
	t.Helper()
	info := func() Info {
		return Info{Roles: []string{"runner"}, ScriptTypes: []string{"sh"}, Capacity: 2, Version: "test"}
	}
	testnet.Guard(t, "overlay config", testnet.Exposure{MDNS: cfg.MDNS, PortMap: cfg.NATPortMap})
	o, err := New(context.Background(), cfg, priv, st, info, testLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := o.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		guardRunning(t, o) // what ran, however the test started it
	})
	guardRunning(t, o)
	return o
}

// guardRunning fails t when o runs mDNS or port mapping on the host (a
// test in a testnet.Lab may).
func guardRunning(t testing.TB, o *Overlay) {
	t.Helper()
	e := o.Exposure()
	testnet.Guard(t, "overlay "+o.ID().String(), testnet.Exposure{MDNS: e.MDNS, PortMap: e.PortMap})
}

// startAgent builds and starts an agent.
func startAgent(t testing.TB, cfg Config) *agent {
	t.Helper()
	return startAgentKey(t, cfg, newKey(t))
}

// startAgentKey is startAgent on the key priv (an agent that restarts).
func startAgentKey(t testing.TB, cfg Config, priv crypto.PrivKey) *agent {
	t.Helper()
	a := newAgentKey(t, cfg, priv)
	if err := a.o.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	guardRunning(t, a.o)
	return a
}

// addr is the agent's first address with /p2p/.
func (a *agent) addr() string { return a.o.Addrs()[0].String() }

// row returns a's peer-table row for p, or nil.
func (a *agent) row(t testing.TB, p peer.ID) *model.Peer {
	t.Helper()
	rows, err := a.o.Peers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(rows, func(r *model.Peer) bool { return r.PeerID == p.String() })
	if i < 0 {
		return nil
	}
	return rows[i]
}

// seesUp reports whether a's stored table has p up and a.Up(p) agrees.
func (a *agent) seesUp(t testing.TB, p peer.ID) bool {
	r := a.row(t, p)
	return r != nil && r.State == model.PeerUp && a.o.Up(p)
}

// waitFor is poll.Eventually.
var waitFor = poll.Eventually

// recv waits for one inbox message.
func recv(t testing.TB, a *agent, d time.Duration) Received {
	t.Helper()
	select {
	case r := <-a.o.Inbox():
		return r
	case <-time.After(d):
		t.Fatalf("%s: nothing received in %v", a.o.ID(), d)
	}
	return Received{}
}
