package node_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/node/api/wire"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// flowBenchCtx is the context both agents create for the chain benchmark.
const flowBenchCtx = 7

// chainLen is the chain's length: HYPHAE_BENCH_CHAIN, default 100.
func chainLen() int {
	if n, err := strconv.Atoi(os.Getenv("HYPHAE_BENCH_CHAIN")); err == nil && n >= 2 {
		return n
	}
	return 100
}

// chainFlowFile is an n-job chain of noop jobs; with remote set, every
// odd job is pinned to that peer, so the chain alternates between the
// supervisor's own runner and the remote agent's.
func chainFlowFile(n int, remote string) string {
	var b strings.Builder
	b.WriteString("name: bench-chain\njobs:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  j%03d: {type: noop, script: x", i)
		if i > 0 {
			fmt.Fprintf(&b, ", needs: j%03d", i-1)
		}
		if remote != "" && i%2 == 1 {
			fmt.Fprintf(&b, ", runner: %s", remote)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// BenchmarkFlowChainEdge: per-edge scheduling overhead of a 100-job chain
// of noop jobs run by real agents, driven through the API as a client
// would (flow.create, then timing flow.start → flow.wait):
//
//   - agents=1: every job on the supervisor's own runner;
//   - agents=2: jobs alternate between the supervisor's runner and a
//     second agent's (pinned by peer ID), so every edge crosses the
//     overlay one way or the other.
//
// noop jobs spend no time running, so the per-edge overhead is
// makespan / (n−1). Beside it, the same run measures single-job round
// trips through the same API (job.run + job.wait, noop): to self, and for
// agents=2 also to the other agent. The baseline for the ratio is the
// local round trip (agents=1) or the mean of local and remote (agents=2,
// half the edges being remote). Metrics: µs/edge, µs/roundtrip,
// edge/roundtrip, and the parts local-µs/roundtrip, remote-µs/roundtrip.
// The chain length is HYPHAE_BENCH_CHAIN (default 100).
func BenchmarkFlowChainEdge(b *testing.B) {
	for _, agents := range []int{1, 2} {
		b.Run(fmt.Sprintf("agents=%d", agents), func(b *testing.B) { flowChainEdge(b, agents) })
	}
}

func flowChainEdge(b *testing.B, agents int) {
	n := chainLen()
	sup := startAgent(b, agentOpts{})
	sup.call(b, "context.create", map[string]any{"id": flowBenchCtx}, nil)
	remote := ""
	if agents == 2 {
		other := startAgent(b, agentOpts{bootstrap: []string{sup.addr(b)}})
		other.call(b, "context.create", map[string]any{"id": flowBenchCtx}, nil)
		other.call(b, "context.grant", map[string]any{"id": flowBenchCtx, "actor": sup.peerID(), "role": "executor"}, nil)
		remote = other.peerID()
	}
	single := func(to string) time.Duration {
		start := time.Now()
		var j wire.JobView
		sup.call(b, "job.run", map[string]any{"to": to, "context": flowBenchCtx, "type": "noop", "script": "-"}, &j)
		if got := waitJob(b, sup, j.ContextID, j.Key); got.Status != "finished" {
			b.Fatalf("job %+v", got)
		}
		return time.Since(start)
	}
	file := chainFlowFile(n, remote)
	chain := func() time.Duration {
		var fv wire.FlowView
		sup.call(b, "flow.create", map[string]any{"file_content": file, "context": flowBenchCtx}, &fv)
		ref := map[string]any{"context": flowBenchCtx, "id": fv.ID}
		start := time.Now()
		sup.call(b, "flow.start", ref, nil)
		for {
			sup.call(b, "flow.wait", map[string]any{"context": flowBenchCtx, "id": fv.ID, "timeout": 60}, &fv)
			if fv.Terminal() {
				break
			}
		}
		d := time.Since(start)
		if fv.Status != "finished" || fv.Progress.Completed != n {
			b.Fatalf("flow %d: %s (%s), %d/%d completed", fv.ID, fv.Status, fv.Error, fv.Progress.Completed, n)
		}
		return d
	}
	// Warm up: connections, mesh, scripts loaded, the remote context seen.
	single("self")
	if remote != "" {
		single(remote)
	}
	chain()

	var local, far, edges []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < 20; k++ {
			local = append(local, single("self"))
			if remote != "" {
				far = append(far, single(remote))
			}
		}
		edges = append(edges, chain()/time.Duration(n-1))
	}
	b.StopTimer()
	edge, rt := medianDur(edges), medianDur(local)
	b.ReportMetric(float64(rt.Microseconds()), "local-µs/roundtrip")
	if remote != "" {
		r := medianDur(far)
		b.ReportMetric(float64(r.Microseconds()), "remote-µs/roundtrip")
		rt = (rt + r) / 2
	}
	b.ReportMetric(float64(edge.Microseconds()), "µs/edge")
	b.ReportMetric(float64(rt.Microseconds()), "µs/roundtrip")
	b.ReportMetric(float64(edge)/float64(rt), "edge/roundtrip")
}

func medianDur(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkCrossAgentCost runs the same round trips as
// BenchmarkCrossAgentRoundTrip (submit through A's API → noop job in B's
// context → result at A, one in flight) and reports what each costs, to
// show where the time goes: Redis commands and redis-server CPU on both
// agents' servers, and this process's CPU (both agents, their libp2p
// hosts and the API client all live in it). Background work (presence,
// heartbeats, leases) is measured over an idle second first and taken
// out. With both agents in one process on 2 vCPUs, CPU per job close to
// the round trip means the path is CPU-bound rather than waiting.
func BenchmarkCrossAgentCost(b *testing.B) {
	alice, bob := benchPair(b)
	run := func() time.Duration { return remoteNoop(b, alice, bob) }
	for range 5 { // warm: connection, mesh, scripts loaded
		run()
	}
	m := testredis.NewMeter(b, alice.redis, bob.redis)
	ctx := context.Background()
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	time.Sleep(time.Second)
	idle, err := m.Stop(ctx)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		lat = append(lat, run())
	}
	b.StopTimer()
	c, err := m.Stop(ctx)
	if err != nil {
		b.Fatal(err)
	}
	c.Without(idle).Report(b, b.N)
	b.ReportMetric(float64(medianDur(lat).Microseconds()), "p50-µs")
	b.ReportMetric(float64(idle.Redis.Commands)/idle.Elapsed.Seconds(), "idle-redis-cmds/s")
}
