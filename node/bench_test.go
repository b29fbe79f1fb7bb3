package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/overlaybench"
)

// BenchmarkCrossAgentRoundTrip: submit a no-op job from agent A into
// agent B's context through A's API, and wait for the result at A, in one
// call (job.run with wait). Compare with overlay's
// BenchmarkRawPubsubRoundTrip from the same run, and with the raw
// request/response interleaved here (raw-p50-µs, ratio-p50).
func BenchmarkCrossAgentRoundTrip(b *testing.B) {
	alice, bob := benchPair(b)
	interleaved(b, func() time.Duration { return remoteNoop(b, alice, bob) })
}

// BenchmarkCrossAgentRoundTripAlone is BenchmarkCrossAgentRoundTrip with
// nothing beside it (no raw round trip after each), as overlay's
// BenchmarkRawPubsubRoundTrip measures raw gossipsub with nothing beside
// it: the target compares these two.
func BenchmarkCrossAgentRoundTripAlone(b *testing.B) {
	alice, bob := benchPair(b)
	overlaybench.Alone(b, 1, func() time.Duration { return remoteNoop(b, alice, bob) })
}

// BenchmarkCrossAgentRoundTripBlocks measures the API round trip and raw
// gossipsub's request/response (two bare hosts) each with nothing beside
// it, as BenchmarkCrossAgentRoundTripAlone and overlay's
// BenchmarkRawPubsubRoundTrip do, but in one loop, in blocks of 50 of each
// in turn (overlaybench.Blocks): a slow phase of the machine hits both
// alike. ratio-p50 is the target: ours over raw.
func BenchmarkCrossAgentRoundTripBlocks(b *testing.B) {
	alice, bob := benchPair(b)
	raw := newRawPubsub(b)
	overlaybench.Blocks(b, 20, 50, func() time.Duration { return remoteNoop(b, alice, bob) },
		func() time.Duration { return raw.roundTrip(b) })
}

// interleaved runs ours b.N times, each followed by a raw gossipsub
// request/response between two bare hosts (rawPubsub), and reports both
// (overlaybench.Interleaved).
func interleaved(b *testing.B, ours func() time.Duration) {
	raw := newRawPubsub(b)
	overlaybench.Interleaved(b, 1, ours, func() time.Duration { return raw.roundTrip(b) })
}

// benchPair starts bob, and alice bootstrapped from him, with alice an
// executor of bob's context 2. Each reaches its redis-server over a unix
// socket, as an agent on its embedded store does (the default).
func benchPair(b *testing.B) (alice, bob *agent) {
	bob = startAgent(b, agentOpts{unixRedis: true})
	alice = startAgent(b, agentOpts{unixRedis: true, bootstrap: []string{bob.addr(b)}})
	grantExecutor(b, bob, 2, alice.peerID())
	return alice, bob
}

// remoteNoop submits a noop job from alice into bob's context 2 and waits
// for its result at alice, in one API call; it returns the round trip.
func remoteNoop(b *testing.B, alice, bob *agent) time.Duration {
	start := time.Now()
	var got wire.JobView
	alice.call(b, "job.run", map[string]any{"to": bob.peerID(), "context": 2, "type": "noop", "script": "-", "wait": 60}, &got)
	if got.Status != "finished" {
		b.Fatalf("job %+v", got)
	}
	return time.Since(start)
}

// BenchmarkCrossAgentRoundTripInProcess is BenchmarkCrossAgentRoundTrip
// without the local API call: alice's job.run is called in process
// (Node.RunJob), as a program embedding the agent would, so what is left is
// the agents' own round trip, comparable with raw pubsub's in-process one.
func BenchmarkCrossAgentRoundTripInProcess(b *testing.B) {
	alice, bob := benchPair(b)
	p := wire.JobRunParams{To: bob.peerID(), Context: 2, Type: "noop", Script: "-", Wait: 60}
	interleaved(b, func() time.Duration {
		start := time.Now()
		got, err := alice.RunJob(context.Background(), p)
		if err != nil || got.Status != "finished" {
			b.Fatalf("job %+v, %v", got, err)
		}
		return time.Since(start)
	})
}

// BenchmarkCrossAgentRoundTripHTTP is BenchmarkCrossAgentRoundTrip with
// the API call posted over HTTP (POST /rpc on the same socket) instead of
// on a kept JSON-RPC stream, as the CLI calls it: ours is the stream, the
// "raw" side the same job.run over HTTP, alternated one for one so that
// drift hits both alike (raw-p50-µs is HTTP's p50, ratio-p50 stream over
// HTTP).
func BenchmarkCrossAgentRoundTripHTTP(b *testing.B) {
	alice, bob := benchPair(b)
	overHTTP := &agent{Node: alice.Node, client: api.NewUnixHTTPClient(node.PathsFor(alice.dir).Socket)}
	overlaybench.Interleaved(b, 20, func() time.Duration { return remoteNoop(b, alice, bob) },
		func() time.Duration { return remoteNoop(b, overHTTP, bob) })
}

// BenchmarkCrossAgentRoundTripPubsubOnly is BenchmarkCrossAgentRoundTrip
// with overlay.direct off on both agents: every message goes through
// gossipsub, as before direct streams (the way agents not connected to each
// other still talk).
func BenchmarkCrossAgentRoundTripPubsubOnly(b *testing.B) {
	bob := startAgent(b, agentOpts{unixRedis: true, noDirect: true})
	alice := startAgent(b, agentOpts{unixRedis: true, noDirect: true, bootstrap: []string{bob.addr(b)}})
	grantExecutor(b, bob, 2, alice.peerID())
	interleaved(b, func() time.Duration { return remoteNoop(b, alice, bob) })
}
