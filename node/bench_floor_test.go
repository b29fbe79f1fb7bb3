package node_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

const (
	floorCtxDB   = 1                // context DB on each agent's redis-server
	floorCtxID   = 1                // context id carried in the envelopes
	floorActorID = "7"              // alice's actor id in bob's actors hash
	floorWarmup  = 5                // unmeasured round trips of each kind
	floorTimeout = 10 * time.Second // bound on any single wait
)

// BenchmarkCrossAgentFloor is a hand-written lower bound for the round trip
// BenchmarkCrossAgentRoundTrip measures (a no-op job submitted by alice into
// bob's context, result back at alice), reported next to a raw gossipsub
// request/response on the same two hosts, interleaved one for one.
//
// The floor keeps only what the contract forces onto the critical path, each
// step done once, in its cheapest form, in one process:
//   - alice builds a JSON job payload, seals it (age + signature) to bob and
//     publishes it on bob's inbox topic; her durable write (job hash, message
//     hash, outbox entry; one MULTI) runs concurrently with seal+publish and
//     is only awaited before her final write;
//   - bob checks and opens the envelope, decodes the JSON and runs ONE Lua
//     script: look up the sender's actor, check its executor role in the
//     context, write the message hash, LPUSH msg_in, write the job hash,
//     LPUSH queue:noop, LMOVE it to a processing list, mark it started; the
//     no-op runs in zero time; the completion MULTI (job finished, result
//     message hash, outbox, LREM processing) runs concurrently with sealing
//     and publishing the result to alice;
//   - alice checks and opens the result, decodes it and runs ONE MULTI (job
//     finished, message processed, ZREM outbox, LPUSH reply:<job>); the round
//     trip ends when it returns, as if the waiter were in-process.
//
// It omits: the API call (HTTP, JSON-RPC, auth) and the waiter's BLPOP or
// poll; id allocation; the msg_out list and the outbox sender loop (alice
// publishes directly); bob's msg_in consumer, a real runner process and
// every queue wake-up (BLMOVE/BLPOP hand-offs, leases, heartbeats); acks in
// either direction; the replay store (dedupe marker); routing by presence;
// pubsub topic validators; logs, events and metrics. Every omitted step adds
// work to the critical path or competes for the same two vCPUs, and the
// overlapping of durable writes with sends is more than an at-least-once
// outbox strictly allows, so no implementation of the contract on this
// machine can be expected to beat these figures: if ratio-p50 here is above
// 3, issue 5's target (p50 ≤ 3× raw) is out of reach here.
//
// Metrics: p50-µs/p99-µs (floor), raw-p50-µs/raw-p99-µs, ratio-p50, and
// medians of the floor's parts: redis-target-p50-µs (the Lua call),
// redis-origin-p50-µs (alice's final MULTI) and crypto-p50-µs (seal, check
// and open of both envelopes).
func BenchmarkCrossAgentFloor(b *testing.B) { benchFloor(b, false) }

// BenchmarkCrossAgentFloorDirect is BenchmarkCrossAgentFloor with the
// envelopes on a kept libp2p stream per direction instead of the inbox
// topics, as the agents send them to a peer they are connected to (overlay's
// direct streams). The raw baseline stays gossipsub, as the issue names it.
func BenchmarkCrossAgentFloorDirect(b *testing.B) { benchFloor(b, true) }

func benchFloor(b *testing.B, direct bool) {
	f := newFloorBench(b, direct)
	n := 0
	for range floorWarmup {
		n++
		f.iteration(b, n)
	}
	var s floorSamples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n++
		s.add(f.iteration(b, n))
	}
	b.StopTimer()
	s.report(b)
	s.reportParts(b)
}

// floorBench holds the two agents and the context their goroutines stop on.
type floorBench struct {
	ctx   context.Context
	alice *floorAgent
	bob   *floorTarget
}

// newFloorBench starts both agents (envelopes on direct streams or on
// gossipsub), connects them, waits for the mesh and starts bob's target
// loop and raw echo. Everything stops at cleanup.
func newFloorBench(b *testing.B, direct bool) *floorBench {
	ctx, cancel := context.WithCancel(context.Background())
	alice := newFloorAgent(b, ctx, "alice", "bob", direct)
	bob := newFloorAgent(b, ctx, "bob", "alice", direct)
	floorConnect(b, ctx, alice, bob)
	t := &floorTarget{floorAgent: bob, origin: alice.id.PeerID(),
		claim: redis.NewScript(floorClaimLua), done: make(chan floorTargetSample, 1)}
	t.prepare(b, ctx)
	var wg sync.WaitGroup
	wg.Go(func() { t.serve(ctx) })
	wg.Go(func() { overlaybench.Echo(ctx, bob.rawIn, bob.rawOut) })
	b.Cleanup(func() { cancel(); wg.Wait() }) // runs before hosts and redis stop
	return &floorBench{ctx: ctx, alice: alice, bob: t}
}

// floorSample is one iteration: a floor round trip, its parts, and the raw
// round trip that followed it.
type floorSample struct {
	total, raw, lua, origin, crypto time.Duration
}

// iteration runs one floor round trip (job id n) then one raw round trip.
func (f *floorBench) iteration(b *testing.B, n int) floorSample {
	t0 := time.Now()
	crypto, origin, err := f.alice.roundTrip(f.ctx, f.bob.id.PeerID(), n)
	total := time.Since(t0)
	if err != nil {
		select {
		case ts := <-f.bob.done:
			err = errors.Join(err, ts.err)
		default:
		}
		b.Fatalf("floor round trip %d: %v", n, err)
	}
	ts := f.bob.wait(b)
	return floorSample{total: total, raw: f.rawRoundTrip(b), lua: ts.lua,
		origin: origin, crypto: crypto + ts.crypto}
}

// rawRoundTrip publishes 1 KiB to bob's raw topic and waits for the echo
// (overlaybench's raw baseline, on the floor's hosts).
func (f *floorBench) rawRoundTrip(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(f.ctx, floorTimeout)
	defer cancel()
	d, err := overlaybench.RoundTrip(ctx, f.alice.rawOut, f.alice.rawIn)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// floorSamples collects the measured iterations.
type floorSamples struct {
	total, raw, lua, origin, crypto []time.Duration
}

func (s *floorSamples) add(x floorSample) {
	s.total = append(s.total, x.total)
	s.raw = append(s.raw, x.raw)
	s.lua = append(s.lua, x.lua)
	s.origin = append(s.origin, x.origin)
	s.crypto = append(s.crypto, x.crypto)
}

func (s *floorSamples) report(b *testing.B) {
	if len(s.total) == 0 {
		return
	}
	p50, raw50 := floorQuantile(s.total, 50), floorQuantile(s.raw, 50)
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(p50, "p50-µs")
	b.ReportMetric(floorQuantile(s.total, 99), "p99-µs")
	b.ReportMetric(raw50, "raw-p50-µs")
	b.ReportMetric(floorQuantile(s.raw, 99), "raw-p99-µs")
	b.ReportMetric(p50/raw50, "ratio-p50")
}

// reportParts adds the medians of the floor's timed parts (not timed
// behind the API).
func (s *floorSamples) reportParts(b *testing.B) {
	if len(s.total) == 0 {
		return
	}
	b.ReportMetric(floorQuantile(s.lua, 50), "redis-target-p50-µs")
	b.ReportMetric(floorQuantile(s.origin, 50), "redis-origin-p50-µs")
	b.ReportMetric(floorQuantile(s.crypto, 50), "crypto-p50-µs")
}

// floorQuantile is the pct-th percentile of ds in microseconds.
func floorQuantile(ds []time.Duration, pct int) float64 {
	c := slices.Clone(ds)
	slices.Sort(c)
	return float64(c[len(c)*pct/100]) / float64(time.Microsecond)
}
