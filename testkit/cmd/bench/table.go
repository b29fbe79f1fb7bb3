package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// row is one line of the bench table.
type row struct {
	what, ours, base, ratio, target, met string
}

// fig is one figure taken from the results, or why it is missing.
type fig struct {
	v   float64
	ok  bool
	why string
}

type table struct {
	res    *results
	groups []string
	rows   map[string][]row
}

func (t *table) fig(name, unit string) fig {
	v, ok := t.res.get(name, unit)
	if !ok {
		why := t.res.why(name)
		if why == "not run" && len(t.res.lines[name]) > 0 {
			why = "no " + unit + " metric"
		}
		return fig{why: why}
	}
	return fig{v: v, ok: true}
}

func (t *table) group(g string) {
	t.groups = append(t.groups, g)
}

func (t *table) add(r row) {
	g := t.groups[len(t.groups)-1]
	t.rows[g] = append(t.rows[g], r)
}

// cmp adds a row comparing ours with base: ratio ours/base, met when
// meets(ratio) holds (nil: informational).
func (t *table) cmp(what string, ours, base fig, show func(float64) string, target string, meets func(float64) bool) {
	r := row{what: what, target: target, met: "—"}
	switch {
	case !ours.ok:
		r.ours, r.base, r.ratio, r.met = "n/a ("+ours.why+")", "", "", "n/a"
	case !base.ok:
		r.ours, r.base, r.ratio, r.met = show(ours.v), "n/a ("+base.why+")", "", "n/a"
	default:
		ratio := ours.v / base.v
		r.ours, r.base, r.ratio = show(ours.v), show(base.v), fmt.Sprintf("%.2f×", ratio)
		if meets != nil {
			r.met = verdict(meets(ratio))
		}
	}
	if target == "" {
		r.target = "— (info)"
	}
	t.add(r)
}

// abs adds a row for a figure with an absolute target and no baseline.
func (t *table) abs(what string, ours fig, show func(float64) string, target string, meets func(float64) bool) {
	r := row{what: what, base: "—", ratio: "—", target: target, met: "—"}
	if !ours.ok {
		r.ours, r.met = "n/a ("+ours.why+")", "n/a"
	} else {
		r.ours = show(ours.v)
		if meets != nil {
			r.met = verdict(meets(ours.v))
		}
	}
	if target == "" {
		r.target = "— (info)"
	}
	t.add(r)
}

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "**NO**"
}

func scale(f fig, k float64) fig { f.v *= k; return f }

// µs formats microseconds.
func µs(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.1f ms", v/1000)
	case v >= 1000:
		return fmt.Sprintf("%.2f ms", v/1000)
	case v >= 100:
		return fmt.Sprintf("%.0f µs", v)
	}
	return fmt.Sprintf("%.1f µs", v)
}

func ms(v float64) string   { return µs(v * 1000) }
func rate(v float64) string { return fmt.Sprintf("%.0f/s", v) }
func mib(v float64) string  { return fmt.Sprintf("%.2f MiB", v) }

func atMost(k float64) func(float64) bool  { return func(r float64) bool { return r <= k } }
func atLeast(k float64) func(float64) bool { return func(r float64) bool { return r >= k } }

// build fills the table from the results.
func build(res *results) *table {
	t := &table{res: res, rows: map[string][]row{}}
	const perOp = 1e-3 // ns/op → µs

	t.group("Store (issue 2) — target: the store adds ≤ 1.3× over raw go-redis")
	t.cmp("job save+load (SaveJob+LoadJob vs HSET+HGETALL), interleaved in one loop",
		t.fig("BenchmarkSaveLoadJobInterleaved", "store-ns/op").times(perOp), t.fig("BenchmarkSaveLoadJobInterleaved", "raw-ns/op").times(perOp),
		µs, "≤ 1.3×", atMost(1.3))
	t.cmp("job save+load, separate benchmarks (StoreSaveLoadJob vs RawSaveLoadJob)",
		t.fig("BenchmarkStoreSaveLoadJob", "ns/op").times(perOp), t.fig("BenchmarkRawSaveLoadJob", "ns/op").times(perOp),
		µs, "≤ 1.3×", atMost(1.3))
	t.cmp("enqueue→dequeue (EnqueueJob+BRPOP vs HSET, LPUSH, BRPOP), interleaved",
		t.fig("BenchmarkEnqueueDequeueInterleaved", "store-ns/op").times(perOp), t.fig("BenchmarkEnqueueDequeueInterleaved", "raw-ns/op").times(perOp),
		µs, "≤ 1.3×", atMost(1.3))
	t.cmp("enqueue→dequeue, separate benchmarks (StoreEnqueueDequeue vs RawEnqueueDequeue)",
		t.fig("BenchmarkStoreEnqueueDequeue", "ns/op").times(perOp), t.fig("BenchmarkRawEnqueueDequeue", "ns/op").times(perOp),
		µs, "≤ 1.3×", atMost(1.3))
	t.cmp("enqueue→dequeue vs the stricter raw baseline: HSET+LPUSH in one MULTI, then BRPOP",
		t.fig("BenchmarkStoreEnqueueDequeue", "ns/op").times(perOp), t.fig("BenchmarkRawEnqueueDequeuePipelined", "ns/op").times(perOp),
		µs, "", nil)

	t.group("Runner (issue 3) — targets: dispatch ≤ 2× the raw Redis job cycle; sh jobs ≥ 0.8× bare fork/exec at concurrency 2")
	t.cmp("noop job, enqueue → finished seen by the client, 1 in flight: p50 (vs raw Redis cycle p50)",
		t.fig("BenchmarkNoopJob", "p50-µs"), t.fig("BenchmarkRawRedisCycle", "p50-µs"), µs, "≤ 2×", atMost(2))
	t.cmp("noop job throughput, 1 in flight (vs raw Redis cycle)",
		t.fig("BenchmarkNoopJob", "jobs/s"), t.fig("BenchmarkRawRedisCycle", "jobs/s"), rate, "≥ 0.5× (≤ 2× overhead)", atLeast(0.5))
	t.cmp("noop job p99 (vs raw Redis cycle p99)",
		t.fig("BenchmarkNoopJob", "p99-µs"), t.fig("BenchmarkRawRedisCycle", "p99-µs"), µs, "", nil)
	t.cmp("noop job: the runner's share, enqueue returned → OnJobDone, p50 (vs raw cycle p50)",
		t.fig("BenchmarkNoopJob", "runner-p50-µs"), t.fig("BenchmarkRawRedisCycle", "p50-µs"), µs, "", nil)
	t.cmp("sh `true` jobs/s at concurrency 2, 4 submitters (vs os/exec `sh -c true` from 2 goroutines)",
		t.fig("BenchmarkShTrue", "jobs/s"), t.fig("BenchmarkRawForkExec", "jobs/s"), rate, "≥ 0.8×", atLeast(0.8))
	t.cmp("floor: a hand-written minimal runner (the issue's raw Redis cycle + job directory, script file, process group, pipes, result file; no leases, logs, retries), same 4 submitters (vs bare fork/exec)",
		t.fig("BenchmarkShFloor", "jobs/s"), t.fig("BenchmarkRawForkExec", "jobs/s"), rate, "", nil)
	t.cmp("floor at its most generous: queue filled beforehand, completion writes off the critical path (vs bare fork/exec)",
		t.fig("BenchmarkShFloorBacklog", "jobs/s"), t.fig("BenchmarkRawForkExec", "jobs/s"), rate, "", nil)
	t.cmp("floor's process part alone, no Redis (vs bare fork/exec)",
		t.fig("BenchmarkShFloorExec", "jobs/s"), t.fig("BenchmarkRawForkExec", "jobs/s"), rate, "", nil)
	t.cmp("our runner vs the floor: sh `true` jobs/s, 4 submitters (ShTrue vs ShFloor)",
		t.fig("BenchmarkShTrue", "jobs/s"), t.fig("BenchmarkShFloor", "jobs/s"), rate, "", nil)
	t.cmp("sh `true` job p50, enqueue → finished incl. queueing (vs one fork/exec p50)",
		t.fig("BenchmarkShTrue", "p50-µs"), t.fig("BenchmarkRawForkExec", "p50-µs"), µs, "", nil)
	t.cmp("cost per noop job: Redis commands, client + runner (vs the raw cycle's)",
		t.fig("BenchmarkNoopJobCost", "redis-cmds/op"), t.fig("BenchmarkRawRedisCycleCost", "redis-cmds/op"), count, "", nil)
	t.cost("cost per noop job: CPU, this process (client + runner) + redis-server (vs the raw cycle's)",
		"BenchmarkNoopJobCost", "BenchmarkRawRedisCycleCost")
	t.cost("cost per sh `true` job: CPU, runner process + redis-server + sh (vs bare fork/exec: Go + sh)",
		"BenchmarkShTrueCost", "BenchmarkRawForkExecCost")

	t.group("Contained jobs (issue 37) — directions: containment adds at most 2 ms to a job's start and costs at most 15 % of sh-job throughput")
	t.cmp("contained sh `true` job, 1 in flight, enqueue → finished: p50 (vs the same job on the host)",
		t.fig("BenchmarkShStartContained", "p50-µs"), t.fig("BenchmarkShStartUncontained", "p50-µs"), µs, "+2 ms at most", nil)
	t.cmp("contained sh `true` jobs/s at concurrency 2, 4 submitters (vs the same jobs on the host)",
		t.fig("BenchmarkShContained", "jobs/s"), t.fig("BenchmarkShUncontained", "jobs/s"), rate, "≥ 0.85×", atLeast(0.85))

	t.group("Cross-agent jobs and envelopes (issue 5) — targets: round trip p50 ≤ 3× raw pubsub request/response; seal+open ≤ 200 µs")
	t.cmp("cross-agent round trip, 2 agents on loopback (API submit → remote noop → result at origin): p50 (vs raw gossipsub request/response p50, 2 bare hosts), each measured with nothing beside it, in the same loop: 50 of ours, then 50 of raw, in turn (CrossAgentRoundTripBlocks)",
		t.fig("BenchmarkCrossAgentRoundTripBlocks", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTripBlocks", "raw-p50-µs"), µs, "≤ 3×", atMost(3))
	t.cmp("… the same, ours and raw each in a benchmark of its own: p50 (CrossAgentRoundTripAlone vs RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentRoundTripAlone", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("… ours from a loop that runs a raw round trip after each of ours, vs raw in a benchmark of its own: p50 (CrossAgentRoundTrip vs RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("… the same round trips, each followed by a raw gossipsub request/response between two bare hosts in the same loop: p50 (vs that interleaved raw p50)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTrip", "raw-p50-µs"), µs, "", nil)
	t.cmp("… submitted in process (Node.RunJob: the same job.run, without the local API call), ours from a loop that runs a raw round trip after each, p50 (vs raw in a benchmark of its own, RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentRoundTripInProcess", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("… submitted in process, p50 (vs raw gossipsub interleaved in the same loop)",
		t.fig("BenchmarkCrossAgentRoundTripInProcess", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTripInProcess", "raw-p50-µs"), µs, "", nil)
	t.cmp("… through the API as a kept JSON-RPC stream on the unix socket (the CLI's way, as in the first row) vs as HTTP (POST /rpc on the same socket), alternated one for one in the same loop: p50 (stream vs HTTP)",
		t.fig("BenchmarkCrossAgentRoundTripHTTP", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTripHTTP", "raw-p50-µs"), µs, "", nil)
	t.cmp("… with each party its own OS process, as on two machines: two `hyphae run` agents, the client calling the API from a third; raw between two processes, interleaved: p50 (vs that raw p50)",
		t.fig("BenchmarkCrossAgentProcesses", "p50-µs"), t.fig("BenchmarkCrossAgentProcesses", "raw-p50-µs"), µs, "", nil)
	t.cmp("… the same processes vs raw between two processes measured alone (no agent running beside it, as RawPubsubRoundTrip): p50 (CrossAgentProcesses vs RawAcrossProcesses)",
		t.fig("BenchmarkCrossAgentProcesses", "p50-µs"), t.fig("BenchmarkRawAcrossProcesses", "p50-µs"), µs, "", nil)
	t.cmp("… with overlay.direct off on both agents (every message through gossipsub, as between agents not connected to each other), through the API: p50 (vs raw gossipsub interleaved in the same loop)",
		t.fig("BenchmarkCrossAgentRoundTripPubsubOnly", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTripPubsubOnly", "raw-p50-µs"), µs, "", nil)
	t.cmp("… direct streams (the default) vs gossipsub only, through the API, p50 (CrossAgentRoundTrip vs CrossAgentRoundTripPubsubOnly)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkCrossAgentRoundTripPubsubOnly", "p50-µs"), µs, "", nil)
	t.cmp("floor: a hand-written minimal cross-agent round trip (seal, check, open both ways; one Lua at the target, completion and origin writes; no API, runner, acks), envelopes on gossipsub inbox topics, p50 (vs raw gossipsub on the same hosts, interleaved)",
		t.fig("BenchmarkCrossAgentFloor", "p50-µs"), t.fig("BenchmarkCrossAgentFloor", "raw-p50-µs"), µs, "", nil)
	t.cmp("… the floor's crypto (seal + check + open, both messages) and its two Redis calls on the critical path, p50 (vs the floor's p50)",
		t.fig("BenchmarkCrossAgentFloor", "crypto-p50-µs").plus(t.fig("BenchmarkCrossAgentFloor", "redis-target-p50-µs")).plus(t.fig("BenchmarkCrossAgentFloor", "redis-origin-p50-µs")),
		t.fig("BenchmarkCrossAgentFloor", "p50-µs"), µs, "", nil)
	t.cmp("floor behind a minimal local API call (HTTP on a unix socket, JSON in and out), p50 (vs raw gossipsub on the same hosts, interleaved)",
		t.fig("BenchmarkCrossAgentFloorAPI", "p50-µs"), t.fig("BenchmarkCrossAgentFloorAPI", "raw-p50-µs"), µs, "", nil)
	t.cmp("… the same, vs raw gossipsub between 2 bare hosts in a benchmark of its own (RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentFloorAPI", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("floor on direct streams (the envelopes on a kept libp2p stream per direction, as connected agents send them; raw baseline still gossipsub), p50 (vs raw gossipsub on the same hosts, interleaved)",
		t.fig("BenchmarkCrossAgentFloorDirect", "p50-µs"), t.fig("BenchmarkCrossAgentFloorDirect", "raw-p50-µs"), µs, "", nil)
	t.cmp("… the same, vs raw gossipsub between 2 bare hosts in a benchmark of its own (RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentFloorDirect", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("floor on direct streams behind the minimal local API, p50 (vs raw gossipsub between 2 bare hosts in a benchmark of its own, RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentFloorAPIDirect", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("our round trip vs the floor on direct streams behind the minimal API, p50 (CrossAgentRoundTrip vs CrossAgentFloorAPIDirect)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkCrossAgentFloorAPIDirect", "p50-µs"), µs, "", nil)
	t.cmp("our round trip submitted in process vs the floor on direct streams (no API on either side), p50 (CrossAgentRoundTripInProcess vs CrossAgentFloorDirect)",
		t.fig("BenchmarkCrossAgentRoundTripInProcess", "p50-µs"), t.fig("BenchmarkCrossAgentFloorDirect", "p50-µs"), µs, "", nil)
	t.cmp("our round trip vs the floor behind the minimal API, p50 (CrossAgentRoundTrip vs CrossAgentFloorAPI)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkCrossAgentFloorAPI", "p50-µs"), µs, "", nil)
	t.cmp("our round trip vs the floor, p50 (CrossAgentRoundTrip vs CrossAgentFloor)",
		t.fig("BenchmarkCrossAgentRoundTrip", "p50-µs"), t.fig("BenchmarkCrossAgentFloor", "p50-µs"), µs, "", nil)
	t.cmp("our round trip submitted in process vs the floor (no API on either side), p50 (CrossAgentRoundTripInProcess vs CrossAgentFloor)",
		t.fig("BenchmarkCrossAgentRoundTripInProcess", "p50-µs"), t.fig("BenchmarkCrossAgentFloor", "p50-µs"), µs, "", nil)
	t.cmp("cross-agent round trip p99 (vs raw pubsub p99), as in the first row (CrossAgentRoundTripBlocks)",
		t.fig("BenchmarkCrossAgentRoundTripBlocks", "p99-µs"), t.fig("BenchmarkCrossAgentRoundTripBlocks", "raw-p99-µs"), µs, "", nil)
	t.cmp("cross-agent jobs/s, 1 in flight (vs raw pubsub request/responses per second, 1 in flight, RawPubsubRoundTrip)",
		t.fig("BenchmarkCrossAgentRoundTripBlocks", "jobs/s"), t.fig("BenchmarkRawPubsubRoundTrip", "ns/op").inverse(1e9), rate, "", nil)
	t.cmp("cost per cross-agent job: Redis commands on both agents' servers (vs the local noop job's)",
		t.fig("BenchmarkCrossAgentCost", "redis-cmds/op"), t.fig("BenchmarkNoopJobCost", "redis-cmds/op"), count, "", nil)
	t.cost("cost per cross-agent job: CPU, both agents' process + both redis-servers (vs the local noop job's)",
		"BenchmarkCrossAgentCost", "BenchmarkNoopJobCost")
	t.cmp("overlay.Send request/response, 1 KiB, our bus without envelopes, connected agents (direct streams): p50 (vs raw libp2p stream request/response, one stream kept open)",
		t.fig("BenchmarkSendRoundTrip", "p50-µs"), t.fig("BenchmarkRawStreamRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("… the same with direct streams off (inbox topics): p50 (vs raw pubsub p50)",
		t.fig("BenchmarkSendRoundTripPubsubOnly", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.cmp("… raw libp2p stream request/response vs raw gossipsub request/response, p50 (what direct streams save, before our code)",
		t.fig("BenchmarkRawStreamRoundTrip", "p50-µs"), t.fig("BenchmarkRawPubsubRoundTrip", "p50-µs"), µs, "", nil)
	t.abs("seal + marshal + check + open of one 1 KiB message (SealOpen)",
		t.fig("BenchmarkSealOpen", "ns/op").times(perOp), µs, "≤ 200 µs", func(v float64) bool { return v <= 200 })
	t.abs("… of which seal: age-encrypt, sign, marshal (Seal)", t.fig("BenchmarkSeal", "ns/op").times(perOp), µs, "", nil)
	t.abs("… of which check: decode, verify signature (Check)", t.fig("BenchmarkCheck", "ns/op").times(perOp), µs, "", nil)
	t.abs("… of which open: age-decrypt (Open)", t.fig("BenchmarkOpen", "ns/op").times(perOp), µs, "", nil)

	t.group("Discovery and presence (issue 4) — targets: first peer < 5 s median; presence traffic per agent grows no faster than linearly")
	under5s := func(v float64) bool { return v < 5000 }
	t.abs("time to first peer via bootstrap address, p50 (overlay.New → peer up)",
		t.fig("BenchmarkTimeToFirstPeer/bootstrap", "p50-ms"), ms, "< 5 s", under5s)
	t.abs("time to first peer via mDNS, p50 (two agents in one process, in a network namespace on a veth; root)",
		t.fig("BenchmarkTimeToFirstPeer/mdns", "p50-ms"), ms, "< 5 s", under5s)
	t.presence()

	t.group("Flows (issue 6) — target: per-edge overhead ≤ 1.5× a single job's dispatch round trip; supervisor memory flat")
	t.cmp("per-edge overhead, 100-job noop chain, scheduler + test worker on one Redis (vs single-job round trip, same setup)",
		t.fig("BenchmarkChainEdge", "µs/edge"), t.fig("BenchmarkChainEdge", "µs/roundtrip"), µs, "≤ 1.5×", atMost(1.5))
	t.cmp("per-edge overhead, 100-job noop chain, 1 real agent through the API (vs job.run+job.wait round trip)",
		t.fig("BenchmarkFlowChainEdge/agents=1", "µs/edge"), t.fig("BenchmarkFlowChainEdge/agents=1", "µs/roundtrip"), µs, "≤ 1.5×", atMost(1.5))
	t.chain2()
	t.fanOut()
	t.cmp("supervisor heap after the 10th of 10 × 1,000-job flows (vs after the 1st); FlowMemory",
		t.fig("BenchmarkFlowMemory", "MiB-after-10th"), t.fig("BenchmarkFlowMemory", "MiB-after-1st"), mib, "flat: ≤ 1.1×", atMost(1.1))
	t.memSeries()
	t.lean()
	return t
}

// cost: CPU per operation (this process + redis-server + reaped
// children), split in the cell, with the ceiling it puts on jobs/s on
// this machine's CPUs, beside the same for a baseline.
func (t *table) cost(what, name, baseName string) {
	total := func(n string) (fig, string) {
		self, redis, kids := t.fig(n, "self-cpu-µs/op"), t.fig(n, "redis-cpu-µs/op"), t.fig(n, "child-cpu-µs/op")
		if !self.ok || !redis.ok {
			return self, ""
		}
		f := fig{v: self.v + redis.v + kids.v, ok: true}
		parts := fmt.Sprintf("process %.0f", self.v)
		if redis.v != 0 {
			parts += fmt.Sprintf(" + redis %.0f", redis.v)
		}
		if kids.ok {
			parts += fmt.Sprintf(" + children %.0f", kids.v)
		}
		return f, fmt.Sprintf(" (%s; ≤ %.0f jobs/s on %d CPUs)", parts, float64(runtime.NumCPU())*1e6/f.v, runtime.NumCPU())
	}
	ours, oursParts := total(name)
	base, baseParts := total(baseName)
	t.cmp(what, ours, base, µs, "", nil)
	rows := t.rows[t.groups[len(t.groups)-1]]
	if ours.ok && base.ok {
		rows[len(rows)-1].ours += oursParts
		rows[len(rows)-1].base += baseParts
	}
}

func count(v float64) string { return fmt.Sprintf("%.1f", v) }

func (f fig) times(k float64) fig { return scale(f, k) }

// plus adds g (missing if either is).
func (f fig) plus(g fig) fig {
	if !g.ok {
		return g
	}
	if f.ok {
		f.v += g.v
	}
	return f
}

func (f fig) inverse(k float64) fig {
	if f.ok && f.v != 0 {
		f.v = k / f.v
	}
	return f
}

// presence: traffic per agent per minute for 5, 20, 50 agents, each size
// beside the smaller size scaled linearly; growth exponents k (traffic ∝
// agents^k) must stay ≤ 1, with 0.1 allowed for noise.
func (t *table) presence() {
	sizes := []int{5, 20, 50}
	type pt struct {
		n          int
		kib, msgs  fig
		haveBoth   bool
		kibV, msgV float64
	}
	var pts []pt
	for _, n := range sizes {
		name := fmt.Sprintf("BenchmarkPresenceTraffic/agents=%d", n)
		p := pt{n: n, kib: t.fig(name, "KiB/agent/min"), msgs: t.fig(name, "msgs/agent/min")}
		p.haveBoth = p.kib.ok && p.msgs.ok
		p.kibV, p.msgV = p.kib.v, p.msgs.v
		pts = append(pts, p)
	}
	show := func(p pt) string { return fmt.Sprintf("%.0f KiB, %.0f msgs", p.kibV, p.msgV) }
	const tolerance = 0.1
	step := func(what string, a, b pt) {
		r := row{what: what, target: "growth exponent k ≤ 1 (+0.1 noise)"}
		if !b.haveBoth {
			r.ours, r.met = "n/a ("+b.kib.why+")", "n/a"
			t.add(r)
			return
		}
		r.ours = show(b)
		if !a.haveBoth {
			r.base, r.met = "n/a ("+a.kib.why+")", "n/a"
			t.add(r)
			return
		}
		f := float64(b.n) / float64(a.n)
		r.base = fmt.Sprintf("n=%d × %g: %.0f KiB, %.0f msgs", a.n, f, a.kibV*f, a.msgV*f)
		kb := math.Log(b.kibV/a.kibV) / math.Log(f)
		km := math.Log(b.msgV/a.msgV) / math.Log(f)
		r.ratio = fmt.Sprintf("%.2f× / %.2f× (k = %.2f / %.2f)", b.kibV/(a.kibV*f), b.msgV/(a.msgV*f), kb, km)
		r.met = verdict(kb <= 1+tolerance && km <= 1+tolerance)
		t.add(r)
	}
	first := pts[0]
	r := row{what: "presence traffic per agent per minute, 5 agents (gossipsub bytes in+out incl. control; presence messages received incl. duplicates)",
		base: "—", ratio: "—", target: "— (reference for growth)", met: "—"}
	if first.haveBoth {
		r.ours = show(first)
	} else {
		r.ours, r.met = "n/a ("+first.kib.why+")", "n/a"
	}
	t.add(r)
	step("… 20 agents (vs 5 agents scaled linearly)", pts[0], pts[1])
	step("… 50 agents (vs 20 agents scaled linearly)", pts[1], pts[2])
	step("… 5 → 50 agents overall", pts[0], pts[2])
}

// chain2: the alternating two-agent chain, its baseline being the mean of
// the local and the remote single-job round trips.
func (t *table) chain2() {
	const name = "BenchmarkFlowChainEdge/agents=2"
	edge, rt := t.fig(name, "µs/edge"), t.fig(name, "µs/roundtrip")
	t.cmp("per-edge overhead, 100-job noop chain alternating between 2 agents (vs mean of local and remote single-job round trips)",
		edge, rt, µs, "≤ 1.5×", atMost(1.5))
	local, remote := t.fig(name, "local-µs/roundtrip"), t.fig(name, "remote-µs/roundtrip")
	if rows := t.rows[t.groups[len(t.groups)-1]]; rt.ok && local.ok && remote.ok {
		rows[len(rows)-1].base = fmt.Sprintf("%s (local %s, remote %s)", µs(rt.v), µs(local.v), µs(remote.v))
	}
}

// fanOut: the 1,000-job fan-out's makespan, beside 1,000 serial
// single-job round trips from the same scheduler benchmark run.
func (t *table) fanOut() {
	span := t.fig("BenchmarkFanOut1000", "ms/makespan")
	rt := t.fig("BenchmarkChainEdge", "µs/roundtrip") // 1,000 × X µs = X ms
	t.cmp("1,000-job fan-out (1 root, 999 noop dependents, 4 workers): makespan (vs 1,000 serial single-job round trips)",
		span, rt, ms, "", nil)
	if span.ok {
		rows := t.rows[t.groups[len(t.groups)-1]]
		rows[len(rows)-1].ours += fmt.Sprintf(" = %.0f jobs/s", 1000/(span.v/1000))
	}
}

// memSeries: heap after every flow of 10 × 1,000 jobs; flat when the last
// is within 10% of the first.
func (t *table) memSeries() {
	const name = "BenchmarkFlowMemorySeries"
	last, first := t.fig(name, "MiB-after-last"), t.fig(name, "MiB-after-1st")
	t.cmp("supervisor heap after the 10th flow, sampled after every flow (vs after the 1st); FlowMemorySeries",
		last, first, mib, "flat: ≤ 1.1×", atMost(1.1))
	slope, high := t.fig(name, "KiB/flow"), t.fig(name, "MiB-max")
	if rows := t.rows[t.groups[len(t.groups)-1]]; last.ok && slope.ok && high.ok {
		rows[len(rows)-1].ours += fmt.Sprintf(" (max %.2f MiB; trend %+.1f KiB/flow over flows 2–10)", high.v, slope.v)
	}
}

// report writes the markdown: header, table, notes and the invocations.
func report(w io.Writer, o options, m machine, tmpNote string, done []doneRun, res *results) {
	t := build(res)
	mode := "full"
	if o.quick {
		mode = "quick"
	}
	host, _ := os.Hostname()
	fmt.Fprintf(w, "Command: `go run ./testkit/cmd/bench%s` (mode %s, count %d)  \n", argString(), mode, o.count)
	fmt.Fprintf(w, "Run: %s, took %s, %s %s/%s, %d CPUs (%s), host %s  \n",
		m.started.UTC().Format("2006-01-02 15:04 MST"), m.took.Round(time.Second), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), cpuModel(), host)
	fmt.Fprintf(w, "Load average (1/5/15 min) before: %s; after: %s  \n", m.load0, m.load1)
	fmt.Fprintf(w, "%s\n\n", tmpNote)
	fmt.Fprintln(w, "| Measure | Ours | Baseline (same run) | Ratio | Target | Met |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, g := range t.groups {
		fmt.Fprintf(w, "| **%s** | | | | | |\n", g)
		for _, r := range t.rows[g] {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", cell(r.what), cell(r.ours), cell(r.base), cell(r.ratio), cell(r.target), cell(r.met))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Notes:")
	fmt.Fprintln(w, "- Ratio is ours ÷ baseline. Baselines are measured by this same run, on the same machine, minutes apart;")
	fmt.Fprintln(w, "  only the rows marked *interleaved* alternate both sides in one loop, so load spikes hit both alike.")
	if o.count > 1 {
		fmt.Fprintf(w, "- Each figure is the median over %d runs of its benchmark (the presence benchmark runs once).\n", o.count)
	}
	fmt.Fprintln(w, "- Latency percentiles come from the benchmarks' own per-iteration samples (b.ReportMetric); jobs/s is completed jobs over wall time.")
	fmt.Fprintln(w, "- Presence: k is the exponent in traffic ∝ agents^k between the two sizes (bytes / messages); 1 is linear.")
	fmt.Fprintln(w, "- `—` in Met: informational row without a target. `n/a`: the figure is missing (reason in the cell).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Invocations (each test binary is built once with `go test -c` and run in its package directory; these are the equivalent commands):")
	fmt.Fprintln(w)
	for _, d := range done {
		status := d.took.Round(100 * time.Millisecond).String()
		if d.err != "" {
			status += ", FAILED: " + d.err
		}
		fmt.Fprintf(w, "- `%s` — %s\n", d.goTest(o.quick, o.count), status)
	}
}

func argString() string {
	if len(os.Args) <= 1 {
		return ""
	}
	return " " + strings.Join(os.Args[1:], " ")
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
