package overlay

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testnet"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Shutdown is safe twice, closes Inbox, refuses a later Start, and leaves
// no goroutine behind (counted against a warmed-up baseline, since
// libp2p starts a few process-wide goroutines once). On the host, so
// without mDNS; TestShutdownTwiceNoLeakWithMDNS adds it in a namespace.
func TestShutdownTwiceNoLeak(t *testing.T) {
	shutdownTwiceNoLeak(t, testConfig())
}

// TestShutdownTwiceNoLeak with mDNS on, in a network namespace of its own
// (testnet.Lab) where mDNS finds the namespace's veth and nothing reaches
// the host's interfaces.
func TestShutdownTwiceNoLeakWithMDNS(t *testing.T) {
	if !testnet.RunInLab(t) {
		return
	}
	ip := multicastIPv4()
	if ip == "" {
		t.Fatal("no multicast interface in the Lab namespace")
	}
	cfg := testConfig()
	cfg.Listen, cfg.MDNS = []string{"/ip4/" + ip + "/tcp/0"}, true
	shutdownTwiceNoLeak(t, cfg)
}

func shutdownTwiceNoLeak(t *testing.T, cfg Config) {
	cycle := func() {
		cfg.DHT = true
		a := startAgent(t, cfg)
		cfgB := cfg
		cfgB.Bootstrap = []string{a.addr()}
		b := startAgent(t, cfgB)
		waitFor(t, 15*time.Second, "B sees A", func() bool { return b.seesUp(t, a.o.ID()) })
		for _, x := range []*agent{b, a} {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			if err := x.o.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if err := x.o.Shutdown(ctx); err != nil {
				t.Fatalf("second shutdown: %v", err)
			}
			cancel()
			if _, open := <-x.o.Inbox(); open {
				t.Fatal("inbox not closed")
			}
			if err := x.o.Start(context.Background()); !errors.Is(err, ErrClosed) {
				t.Fatalf("start after shutdown: %v", err)
			}
			if got := x.o.Exposure().MDNS; got != cfg.MDNS {
				t.Fatalf("overlay reports mDNS running %v, configured %v", got, cfg.MDNS)
			}
		}
	}
	cycle()
	base := len(p2pGoroutines())
	cycle()
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := p2pGoroutines()
		if len(left) <= base {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d overlay/libp2p goroutines left, baseline %d:\n%s", len(left), base, strings.Join(left, "\n\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// p2pGoroutines returns the stacks of goroutines running overlay or
// libp2p code (the test's redis-server waiters are not ours).
func p2pGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, mark := range []string{"libp2p", "hyphae/overlay.", "quic-go", "zeroconf", "multiformats", "ipfs"} {
			if strings.Contains(g, mark) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

func TestSendBeforeStartAndAfterShutdown(t *testing.T) {
	a := newAgent(t, testConfig())
	if err := a.o.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	other := peer.ID("\x00\x24\x08\x01\x12\x20" + strings.Repeat("\x01", 32))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := a.o.Send(ctx, other, []byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("send after shutdown: %v", err)
	}
}
