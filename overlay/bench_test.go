package overlay_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/overlay"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
	"github.com/hyphae-run/hyphae/testkit/testnet"
	"github.com/hyphae-run/hyphae/testkit/testredis"
	"github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

const benchPayload = overlaybench.RawSize

// benchAgent starts an overlay on its own redis-server, stopped at the end.
func benchAgent(b *testing.B, st *store.Store, cfg overlay.Config) *overlay.Overlay {
	b.Helper()
	if st == nil {
		srv := testredis.Start(b)
		var err error
		if st, err = store.Open(context.Background(), srv.URL, nil); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = st.Close() })
	}
	priv, _, _ := crypto.GenerateEd25519Key(rand.Reader)
	info := func() overlay.Info { return overlay.Info{Roles: []string{"runner"}, ScriptTypes: []string{"sh"}} }
	guardConfig(b, cfg)
	o, err := overlay.New(context.Background(), cfg, priv, st.Registry, info, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = o.Shutdown(context.Background()) })
	if err := o.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	guardRunning(b, o)
	return o
}

// guardConfig fails b when cfg has mDNS or port mapping on outside a
// testnet.Lab namespace; guardRunning when o runs either there.
func guardConfig(b testing.TB, cfg overlay.Config) {
	b.Helper()
	testnet.Guard(b, "overlay config", testnet.Exposure{MDNS: cfg.MDNS, PortMap: cfg.NATPortMap})
}

func guardRunning(b testing.TB, o *overlay.Overlay) {
	b.Helper()
	e := o.Exposure()
	testnet.Guard(b, "overlay "+o.ID().String(), testnet.Exposure{MDNS: e.MDNS, PortMap: e.PortMap})
}

// BenchmarkSendRoundTrip: A sends 1 KiB to B with Send, B replies with
// Send, A waits for the reply (connected agents: direct streams). Compare
// with BenchmarkRawStreamRoundTrip.
func BenchmarkSendRoundTrip(b *testing.B) {
	sendRoundTrip(b, overlay.Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}})
}

// BenchmarkSendRoundTripPubsubOnly is BenchmarkSendRoundTrip with direct
// streams off: through the inbox topics. Compare with
// BenchmarkRawPubsubRoundTrip.
func BenchmarkSendRoundTripPubsubOnly(b *testing.B) {
	sendRoundTrip(b, overlay.Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}, NoDirect: true})
}

func sendRoundTrip(b *testing.B, cfg overlay.Config) {
	a := benchAgent(b, nil, cfg)
	cfg.Bootstrap = []string{a.Addrs()[0].String()}
	bb := benchAgent(b, nil, cfg)
	go func() {
		for r := range bb.Inbox() {
			_ = bb.Send(context.Background(), r.From, r.Data)
		}
	}()
	ctx := context.Background()
	roundTrip := func() {
		if err := a.Send(ctx, bb.ID(), make([]byte, benchPayload)); err != nil {
			b.Fatal(err)
		}
		<-a.Inbox()
	}
	roundTrip() // warm up: connection, subscriptions
	measure(b, roundTrip)
}

// BenchmarkRawPubsubRoundTrip is the baseline: two bare hosts with plain
// gossipsub, each subscribed to its own topic, echoing 1 KiB.
func BenchmarkRawPubsubRoundTrip(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pair := overlaybench.NewRawPair(b, ctx)
	roundTrip := func() {
		if _, err := pair.RoundTrip(ctx); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()
	measure(b, roundTrip)
}

// BenchmarkRawStreamRoundTrip is the direct path's baseline: two bare
// hosts, one libp2p stream kept open, 1 KiB written and echoed back on it.
func BenchmarkRawStreamRoundTrip(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h1, _ := overlaybench.Host(b, ctx)
	h2, _ := overlaybench.Host(b, ctx)
	const proto = "/bench/echo/1"
	h2.SetStreamHandler(proto, func(s network.Stream) {
		defer s.Close()
		_, _ = io.Copy(s, s)
	})
	if err := h1.Connect(ctx, peer.AddrInfo{ID: h2.ID(), Addrs: h2.Addrs()}); err != nil {
		b.Fatal(err)
	}
	s, err := h1.NewStream(ctx, h2.ID(), proto)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Reset()
	buf := make([]byte, benchPayload)
	roundTrip := func() {
		if _, err := s.Write(make([]byte, benchPayload)); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(s, buf); err != nil {
			b.Fatal(err)
		}
	}
	roundTrip()
	measure(b, roundTrip)
}

// measure runs f b.N times and reports p50 and p99 in microseconds.
func measure(b *testing.B, f func()) {
	overlaybench.Alone(b, 0, func() time.Duration {
		t0 := time.Now()
		f()
		return time.Since(t0)
	})
}

// BenchmarkPresenceTraffic measures presence traffic per agent per minute
// for 5, 20 and 50 in-process agents (50 is skipped with -short). The
// measuring window is HYPHAE_BENCH_PRESENCE_SECONDS (default 30).
func BenchmarkPresenceTraffic(b *testing.B) {
	window := 30 * time.Second
	if s, err := strconv.Atoi(os.Getenv("HYPHAE_BENCH_PRESENCE_SECONDS")); err == nil && s > 0 {
		window = time.Duration(s) * time.Second
	}
	for _, n := range []int{5, 20, 50} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			if n > 20 && testing.Short() {
				b.Skip("50 agents: not with -short")
			}
			bytes, msgs, err := overlaybench.PresenceTraffic(n, window)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(bytes/1024, "KiB/agent/min")
			b.ReportMetric(msgs, "msgs/agent/min")
		})
	}
}

// BenchmarkTimeToFirstPeer: from overlay.New to the first peer seen up,
// found by a bootstrap address or by mDNS. The mdns run needs a multicast
// interface and must not announce on the host's: it runs this benchmark
// binary again in a network namespace of its own (testnet.Lab, root only)
// on a veth, both agents in that one process, and reports the p50 it
// measured there (its ns/op counts the namespace's set-up too).
func BenchmarkTimeToFirstPeer(b *testing.B) {
	for _, how := range []string{"bootstrap", "mdns"} {
		b.Run(how, func(b *testing.B) {
			cfg := overlay.Config{Listen: []string{"/ip4/127.0.0.1/tcp/0"}}
			if how == "mdns" {
				if _, ok := testnet.InLab(); !ok {
					m := testnet.RunBenchInLab(b)
					b.ReportMetric(m["p50-ms"], "p50-ms")
					return
				}
				ip := multicastIP()
				if ip == "" {
					b.Fatal("no multicast interface in the Lab namespace")
				}
				cfg.Listen, cfg.MDNS = []string{"/ip4/" + ip + "/tcp/0"}, true
			}
			first := benchAgent(b, nil, cfg)
			if how == "bootstrap" {
				cfg.Bootstrap = []string{first.Addrs()[0].String()}
			}
			srv := testredis.Start(b)
			st, err := store.Open(context.Background(), srv.URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			firstPeer(b, st, cfg, first.ID())
		})
	}
}

// firstPeer starts b.N agents in turn and times each one's first sighting.
func firstPeer(b *testing.B, st *store.Store, cfg overlay.Config, target peer.ID) {
	d := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		priv, _, _ := crypto.GenerateEd25519Key(rand.Reader)
		info := func() overlay.Info { return overlay.Info{} }
		guardConfig(b, cfg)
		o, err := overlay.New(context.Background(), cfg, priv, st.Registry, info, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		if err := o.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		guardRunning(b, o)
		for deadline := t0.Add(30 * time.Second); !o.Up(target); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				_ = o.Shutdown(context.Background())
				b.Fatalf("agent %d did not see the first agent within 30 s", i+1)
			}
		}
		d = append(d, time.Since(t0))
		_ = o.Shutdown(context.Background())
	}
	p50, _, _ := overlaybench.Percentiles(d)
	b.ReportMetric(float64(p50.Milliseconds()), "p50-ms")
}

// multicastIP is the IPv4 address of an up multicast non-loopback interface.
func multicastIP() string {
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagMulticast == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil {
				return n.IP.String()
			}
		}
	}
	return ""
}
