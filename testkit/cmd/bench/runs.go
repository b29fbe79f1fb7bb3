package main

import (
	"fmt"
	"strings"
)

// run is one `go test -run '^$' -bench <bench> -benchtime <n>x` invocation.
type run struct {
	pkg   string // ./context/store
	bench string // -bench pattern
	full  int    // iterations (-benchtime Nx) in full mode
	quick int    // … in quick mode
	// env is set for the benchmark process in both modes; fullEnv and
	// quickEnv in one mode only.
	env, fullEnv, quickEnv []string
	quickShort             bool // -short in quick mode
	once                   bool // ignores -count: a long measuring window per run
	// verbose adds -v, for skip messages and b.Log lines. Only where the
	// package does not log more under -v: node's test agents then log at
	// debug level, which would be measured.
	verbose bool
	// static builds the test binary with CGO_ENABLED=0, as the release is.
	static bool
	// module: pkg is a module of its own (its own go.mod, as asynqbase),
	// built from its directory, so nothing of it enters the main module.
	module bool
}

// runs are the invocations, in order. Full mode takes about 6 minutes on 2
// vCPUs (the presence windows alone are 3 × 30 s, the shortcut comparisons
// about 3 minutes), quick mode about 2.5 minutes; both stay inside 10
// minutes on a busy machine.
var runs = []run{
	{pkg: "./crypto/envelope", bench: "^Benchmark(SealOpen|Seal|Check|Open)$", full: 5000, quick: 1000},
	{pkg: "./context/store", bench: "^Benchmark(SaveLoadJobInterleaved|EnqueueDequeueInterleaved|StoreSaveLoadJob|RawSaveLoadJob|StoreEnqueueDequeue|RawEnqueueDequeue|RawEnqueueDequeuePipelined)$", full: 3000, quick: 800},
	{pkg: "./executor", bench: "^Benchmark(NoopJob|RawRedisCycle)$", full: 3000, quick: 600},
	{pkg: "./executor", bench: "^Benchmark(ShTrue|RawForkExec|ShFloor|ShFloorBacklog|ShFloorExec)$", full: 2000, quick: 400},
	{pkg: "./executor", bench: "^Benchmark(NoopJobCost|RawRedisCycleCost|ShTrueCost|RawForkExecCost)$", full: 1000, quick: 300},
	// Contained jobs re-execute the binary as their init: measured as the
	// release builds it (static, CGO_ENABLED=0), where a Go start is cheaper.
	{pkg: "./executor", bench: "^BenchmarkSh(Start)?(Un)?[Cc]ontained$", full: 600, quick: 200, static: true},
	{pkg: "./overlay", bench: "^Benchmark(SendRoundTrip|SendRoundTripPubsubOnly|RawPubsubRoundTrip|RawStreamRoundTrip)$", full: 2000, quick: 400},
	// once: with -count 3 in one process, 1 of 30 mDNS agents once did not
	// see its peer within 30 s (the benchmark then fails rather than hang).
	{pkg: "./overlay", bench: "^BenchmarkTimeToFirstPeer$", full: 10, quick: 3, verbose: true, once: true},
	{pkg: "./overlay", bench: "^BenchmarkPresenceTraffic$", full: 1, quick: 1, once: true, quickShort: true, verbose: true,
		fullEnv: []string{"HYPHAE_BENCH_PRESENCE_SECONDS=30"}, quickEnv: []string{"HYPHAE_BENCH_PRESENCE_SECONDS=10"}},
	{pkg: "./node", bench: "^BenchmarkCrossAgentRoundTrip(InProcess|PubsubOnly|HTTP|Alone|Blocks)?$", full: 500, quick: 100},
	{pkg: "./node", bench: "^BenchmarkCrossAgentFloor(API)?(Direct)?$", full: 500, quick: 100},
	{pkg: "./testkit/e2e", bench: "^Benchmark(CrossAgentProcesses|RawAcrossProcesses)$", full: 500, quick: 100},
	{pkg: "./node", bench: "^BenchmarkCrossAgentCost$", full: 300, quick: 100},
	// Each shortcut of the bus against its plain path (ARCHITECTURE.md): 13
	// sub-benchmarks of two agent pairs each.
	{pkg: "./node", bench: "^BenchmarkCrossAgentShortcuts$", full: 300, quick: 50},
	{pkg: "./node", bench: "^BenchmarkCrossAgentShortcutsBacklog$", full: 30, quick: 5},
	{pkg: "./node", bench: "^BenchmarkFlowChainEdge$", full: 5, quick: 1},
	{pkg: "./scheduler", bench: "^Benchmark(ChainEdge|FanOut1000)$", full: 10, quick: 2},
	{pkg: "./scheduler", bench: "^Benchmark(FlowMemory|FlowMemorySeries)$", full: 1, quick: 1, verbose: true},
	// Lean (issue 38): a fresh `hyphae run` measured from outside, beside
	// asynq v0.26 on the same redis-server build (asynqbase, a module of
	// its own). The idle windows log which Redis commands they saw (-v).
	{pkg: "./testkit/e2e", bench: "^BenchmarkLeanNoopJobs$", full: 3000, quick: 600},
	{pkg: "./testkit/e2e", bench: "^BenchmarkLeanAccumulation$", full: 1, quick: 1, once: true, verbose: true,
		fullEnv: []string{"HYPHAE_BENCH_ACCUM_JOBS=150000"}, quickEnv: []string{"HYPHAE_BENCH_ACCUM_JOBS=40000"}},
	{pkg: "./testkit/cmd/bench/asynqbase", bench: "^BenchmarkAsynqNoop$", full: 3000, quick: 600, module: true},
	{pkg: "./testkit/e2e", bench: "^BenchmarkLeanShTrue$", full: 1000, quick: 300},
	{pkg: "./testkit/e2e", bench: "^BenchmarkCrossAgentInFlight$", full: 3000, quick: 600},
	{pkg: "./testkit/cmd/bench/asynqbase", bench: "^BenchmarkAsynqShTrue$", full: 1000, quick: 300, module: true},
	{pkg: "./testkit/e2e", bench: "^Benchmark(AgentStartup|RedisServerStartup)$", full: 10, quick: 5},
	{pkg: "./testkit/e2e", bench: "^Benchmark(IdleAgent|IdleRedisServer)$", full: 1, quick: 1, once: true, verbose: true,
		fullEnv: []string{"HYPHAE_BENCH_IDLE_SECONDS=20"}, quickEnv: []string{"HYPHAE_BENCH_IDLE_SECONDS=10"}},
	{pkg: "./testkit/cmd/bench/asynqbase", bench: "^BenchmarkAsynqIdle$", full: 1, quick: 1, once: true, verbose: true, module: true,
		fullEnv: []string{"HYPHAE_BENCH_IDLE_SECONDS=20"}, quickEnv: []string{"HYPHAE_BENCH_IDLE_SECONDS=10"}},
}

// iterations is the -benchtime count for the mode.
func (r run) iterations(quick bool) int {
	if quick {
		return r.quick
	}
	return r.full
}

// environ is the extra environment for the mode.
func (r run) environ(quick bool) []string {
	e := append([]string(nil), r.env...)
	if quick {
		return append(e, r.quickEnv...)
	}
	return append(e, r.fullEnv...)
}

// count is the -count for this run.
func (r run) count(count int) int {
	if r.once {
		return 1
	}
	return count
}

// testArgs are the compiled test binary's arguments.
func (r run) testArgs(quick bool, count int) []string {
	args := []string{"-test.run", "^$", "-test.bench", r.bench,
		"-test.benchtime", fmt.Sprintf("%dx", r.iterations(quick)),
		"-test.count", fmt.Sprint(r.count(count)), "-test.timeout", "15m"}
	if r.verbose {
		args = append(args, "-test.v")
	}
	if quick && r.quickShort {
		args = append(args, "-test.short")
	}
	return args
}

// goTest is the equivalent `go test` command line, for the report.
func (r run) goTest(quick bool, count int) string {
	var b strings.Builder
	if r.module {
		fmt.Fprintf(&b, "(cd %s && ", strings.TrimPrefix(r.pkg, "./"))
	}
	for _, e := range r.environ(quick) {
		b.WriteString(e + " ")
	}
	fmt.Fprintf(&b, "go test -run '^$' -bench '%s' -benchtime %dx", r.bench, r.iterations(quick))
	if c := r.count(count); c > 1 {
		fmt.Fprintf(&b, " -count %d", c)
	}
	if quick && r.quickShort {
		b.WriteString(" -short")
	}
	if r.verbose {
		b.WriteString(" -v")
	}
	if r.module {
		b.WriteString(" .)")
		return b.String()
	}
	b.WriteString(" " + r.pkg)
	return b.String()
}
