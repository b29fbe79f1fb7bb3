package node_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/config"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// BenchmarkCrossAgentShortcuts measures what each shortcut of the bus
// (ARCHITECTURE.md, "The shortcuts"; config.Shortcuts) gains. Per
// shortcut, a normal pair of agents and a pair with only that shortcut
// off run BenchmarkCrossAgentRoundTrip's round trip (API submit → remote
// noop → result at the origin) in blocks of 50 each, in turn
// (overlaybench.Blocks, ours = the plain pair, raw = the normal one), so
// ratio-p50 is the plain pair's p50 over the normal pair's: above 1 the
// shortcut saves time. none runs two normal pairs (the noise band), all a
// pair with bus.plain. Each pair's cost per round trip is reported too:
// the commands its two redis-servers ran (idle background taken out) and
// the envelopes its agents sealed, as redis-cmds/op and envelopes/op for
// the normal pair and plain-redis-cmds/op, plain-envelopes/op for the
// other.
func BenchmarkCrossAgentShortcuts(b *testing.B) {
	names := append(append([]string{"none"}, config.Shortcuts...), "all")
	for _, name := range names {
		b.Run(name, func(b *testing.B) { shortcutGain(b, name) })
	}
}

// shortcutGain is one sub-benchmark of BenchmarkCrossAgentShortcuts.
func shortcutGain(b *testing.B, name string) {
	o := agentOpts{unixRedis: true}
	switch name {
	case "none":
	case "all":
		o.plain = true
	default:
		o.plainOnly = []string{name}
	}
	normal := newMeteredPair(b, agentOpts{unixRedis: true})
	plain := newMeteredPair(b, o)
	for range 20 { // warm: connections, meshes, scripts loaded, id blocks
		normal.run(b)
		plain.run(b)
	}
	idle(b, normal, plain)
	normal.start(b)
	plain.start(b)
	overlaybench.Blocks(b, 0, 50, func() time.Duration { return plain.run(b) },
		func() time.Duration { return normal.run(b) })
	normal.report(b, "")
	plain.report(b, "plain-")
}

// meteredPair is benchPair's two agents with a meter on their
// redis-servers and a count of the envelopes they sealed.
type meteredPair struct {
	alice, bob *agent
	meter      *testredis.Meter
	bg         testredis.Cost // an idle window, taken out of the measured one
	envelopes  int64          // sealed when the measured window opened
}

func newMeteredPair(b *testing.B, o agentOpts) *meteredPair {
	bob := startAgent(b, o)
	o.bootstrap = []string{bob.addr(b)}
	alice := startAgent(b, o)
	grantExecutor(b, bob, 2, alice.peerID())
	return &meteredPair{alice: alice, bob: bob, meter: testredis.NewMeter(b, alice.redis, bob.redis)}
}

func (p *meteredPair) run(b *testing.B) time.Duration { return remoteNoop(b, p.alice, p.bob) }

// sealed is how many envelopes the pair's bridges have sent.
func (p *meteredPair) sealed() int64 {
	var n int64
	for _, a := range []*agent{p.alice, p.bob} {
		for _, v := range a.BusStats().Sent {
			n += v
		}
	}
	return n
}

func (p *meteredPair) start(b *testing.B) {
	if err := p.meter.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	p.envelopes = p.sealed()
}

// report adds the pair's redis-cmds/op and envelopes/op, named with prefix.
func (p *meteredPair) report(b *testing.B, prefix string) {
	c, err := p.meter.Stop(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if b.N == 0 {
		return
	}
	c = c.Without(p.bg)
	b.ReportMetric(float64(c.Redis.Commands)/float64(b.N), prefix+"redis-cmds/op")
	b.ReportMetric(float64(p.sealed()-p.envelopes)/float64(b.N), prefix+"envelopes/op")
}

// idle measures both pairs' background Redis work over the same idle
// second (presence, heartbeats, the loops' blocking waits).
func idle(b *testing.B, pairs ...*meteredPair) {
	for _, p := range pairs {
		if err := p.meter.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	for _, p := range pairs {
		bg, err := p.meter.Stop(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		p.bg = bg
	}
}

// BenchmarkCrossAgentShortcutsBacklog is BenchmarkCrossAgentShortcuts for
// the shortcuts that only act on a backlog, which one round trip in flight
// never builds: chain (CompleteAndClaim) claims a context's next job in
// the write that ends the last one. One op is a burst of 32 noop jobs
// submitted at once from alice into bob's context (bob runs 2 at a time)
// until every result is home; ratio-p50 is the plain pair's burst time
// over the normal pair's, and the redis and envelope counts (and jobs/s)
// are per burst.
func BenchmarkCrossAgentShortcutsBacklog(b *testing.B) {
	for _, name := range []string{"none", "chain"} {
		b.Run(name, func(b *testing.B) {
			o := agentOpts{unixRedis: true, slots: 2}
			if name != "none" {
				o.plainOnly = []string{name}
			}
			normal := newMeteredPair(b, agentOpts{unixRedis: true, slots: 2})
			plain := newMeteredPair(b, o)
			for range 2 {
				normal.burst(b, 32)
				plain.burst(b, 32)
			}
			idle(b, normal, plain)
			normal.start(b)
			plain.start(b)
			overlaybench.Blocks(b, 0, 5, func() time.Duration { return plain.burst(b, 32) },
				func() time.Duration { return normal.burst(b, 32) })
			normal.report(b, "")
			plain.report(b, "plain-")
		})
	}
}

// burst submits n noop jobs from alice into bob's context 2 at once and
// waits until every one has ended at alice; it returns how long it took.
func (p *meteredPair) burst(b *testing.B, n int) time.Duration {
	start := time.Now()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { p.run(b) })
	}
	wg.Wait()
	return time.Since(start)
}
