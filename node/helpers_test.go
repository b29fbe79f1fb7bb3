package node_test

import (
	"cmp"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/internal/poll"
	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/testkit/testlog"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// agent is an in-process Hyphae agent with its own redis-server.
type agent struct {
	*node.Node
	dir    string
	redis  *testredis.Server
	client *api.Client
}

type agentOpts struct {
	bootstrap []string
	roles     []string
	redis     *testredis.Server // reuse (restart tests)
	dir       string
	tcpAPI    bool                // serve the API on a random loopback port too
	executors map[string][]string // extra script types (config executors)
	ackAfter  time.Duration       // bus.timeout_ack (default 500ms)
	grace     time.Duration       // runner.drain_grace (default 30s)
	unixRedis bool                // reach redis over a unix socket, as the embedded store does
	slots     int                 // runner.concurrency (default CPUs)
	noDirect  bool                // overlay.direct: false (every message through gossipsub)
	plain     bool                // bus.plain: every shortcut of the bus off (also HYPHAE_TEST_BUS_PLAIN=1)
	plainOnly []string            // only these shortcuts off (config.Bus.PlainOnly)
	log       *slog.Logger        // the agent's logger (default: testlog's; trace_test.go reads its lines)
	breaker   config.Breaker      // circuit breakers (default: config's defaults)
	files     config.Files        // files between jobs' bounds (default: config's defaults)
	// contained runs jobs from other agents contained, as by default.
	// Without it they run on the host (runner.isolation.remote: host):
	// most tests here watch a remote job through a file in the test's
	// temp dir, which a contained job cannot reach. Containment itself is
	// tested with it, and end to end on the binary's defaults.
	contained bool
	lan       bool // mDNS and port mapping as by default (on): only in a testnet.Lab (guardConfig)
}

func startAgent(t testing.TB, o agentOpts) *agent {
	t.Helper()
	if o.redis == nil {
		o.redis = testredis.Start(t, testredis.Options{Socket: o.unixRedis})
	}
	redisURL := o.redis.URL
	if o.unixRedis {
		redisURL = o.redis.SocketURL
	}
	if o.dir == "" {
		// short path: unix socket paths are limited to 108 bytes
		d, err := os.MkdirTemp("", "hy")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		o.dir = filepath.Join(d, "a")
		if _, err := node.Init(o.dir, false); err != nil {
			t.Fatal(err)
		}
	}
	f := false
	cfg := &config.Config{DataDir: o.dir, Roles: o.roles, Redis: config.Redis{URL: redisURL},
		API: config.API{Listen: map[bool]string{true: "127.0.0.1:0", false: "off"}[o.tcpAPI]},
		Overlay: config.Overlay{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, Bootstrap: o.bootstrap,
			MDNS: &f, NATPortMap: &f, PresenceInterval: 300 * time.Millisecond, Direct: ptr(!o.noDirect)},
		Bus: config.Bus{TimeoutAck: cmp.Or(o.ackAfter, 500*time.Millisecond), Plain: o.plain || testBusPlain(),
			PlainOnly: o.plainOnly}, Executors: o.executors,
		Runner: config.Runner{DrainGrace: o.grace, Concurrency: o.slots}, Breaker: o.breaker, Files: o.files}
	if !o.contained {
		cfg.Runner.Isolation.Remote = model.IsolationHost
	}
	if o.lan {
		cfg.Overlay.MDNS, cfg.Overlay.NATPortMap = nil, nil
	}
	cfg.Defaults()
	guardConfig(t, cfg)
	log, named := testlog.New(t, "pubsub") // gossipsub logs every RPC at debug level
	if o.log != nil {
		log = o.log
	}
	n, err := node.New(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	named("agent " + n.ID().PeerID().String())
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	guardNode(t, n)
	a := &agent{Node: n, dir: o.dir, redis: o.redis, client: api.NewUnixClient(node.PathsFor(o.dir).Socket)}
	t.Cleanup(func() { a.stop(t) })
	return a
}

func (a *agent) stop(t testing.TB) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Logf("shutdown: %v", err)
	}
}

func (a *agent) call(t testing.TB, method string, params, out any) {
	t.Helper()
	if err := a.client.Call(context.Background(), method, params, out); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (a *agent) addr(t testing.TB) string {
	var info wire.InfoView
	a.call(t, "node.info", nil, &info)
	if len(info.ListenAddrs) == 0 {
		t.Fatal("agent has no listen address")
	}
	return info.ListenAddrs[0]
}

func (a *agent) peerID() string { return a.ID().PeerID().String() }

// eventually is poll.Eventually (kept short: the tests call it often).
var eventually = poll.Eventually

// ptr returns a pointer to v (config fields whose nil means a default).
func ptr[T any](v T) *T { return &v }
