package main

import (
	"fmt"
	"runtime"
)

// lean adds the rows of issue 38: a plain noop job's cost and an idle
// agent's, beside asynq v0.26 on the same redis-server build and the raw
// Redis cycle, measured in the same run.
func (t *table) lean() {
	t.group("Lean (issue 38) — directions: ≤ 16 Redis commands and ≤ 1.5 keys kept per plain job; vs asynq v0.26 noop jobs/s ≥ 1.2×, CPU per job ≤ 1.0×; idle agent and its store ≤ 0.2 % CPU each with 1 and 20 contexts, RSS ≤ 32 MiB; start-up ≤ 50 ms")
	const ours, asynq = "BenchmarkLeanNoopJobs", "BenchmarkAsynqNoop"
	t.cmp("noop jobs/s, 4 submitters, fresh `hyphae run` through the Redis contract (HSET, LPUSH queue:noop, BLPOP reply) (vs asynq v0.26 noop tasks, 4 submitters, 1 ms poll; LeanNoopJobs vs AsynqNoop)",
		t.fig(ours, "jobs/s"), t.fig(asynq, "jobs/s"), rate, "≥ 1.2×", atLeast(1.2))
	t.leanCPU("CPU per noop job: agent + submitters + redis-server (vs asynq: worker and submitters in one process + redis-server)", ours, asynq)
	t.cmpOurs("Redis commands per plain noop job, INFO stats, less the client's 3 (vs asynq's per task, less its client's enqueue)",
		t.fig(ours, "redis-cmds/op"), t.fig(asynq, "redis-cmds/op"), count, "≤ 16", func(v float64) bool { return v <= 16 })
	t.cmp("… the same (vs the raw Redis cycle's 8, RawRedisCycleCost)",
		t.fig(ours, "redis-cmds/op"), t.fig("BenchmarkRawRedisCycleCost", "redis-cmds/op"), count, "", nil)
	t.cmpOurs("keys kept per ended job, a second after the window, all DBs (vs asynq's per completed task)",
		t.fig(ours, "keys/op"), t.fig(asynq, "keys/op"), count, "≤ 1.5", func(v float64) bool { return v <= 1.5 })
	t.cmp("sh `true` jobs/s, 4 submitters, through the Redis contract (vs asynq v0.26 tasks whose handler runs sh -c true; LeanShTrue vs AsynqShTrue)",
		t.fig("BenchmarkLeanShTrue", "jobs/s"), t.fig("BenchmarkAsynqShTrue", "jobs/s"), rate, "≥ 1.0×", atLeast(1.0))
	t.leanCPU("CPU per sh `true` job: agent + submitters + redis-server (vs asynq's; sh's own CPU in neither)", "BenchmarkLeanShTrue", "BenchmarkAsynqShTrue")
	const far = "BenchmarkCrossAgentInFlight"
	t.cmp("cross-agent noop jobs/s, 64 in flight, two `hyphae run` processes on loopback, job.run on A's API into B's context (vs raw gossipsub request/responses/s, 64 in flight, a bare host here and one in a helper process, 1 KiB)",
		t.fig(far, "jobs/s"), t.fig(far, "raw-rr/s"), rate, "≥ 0.5×", atLeast(0.5))
	t.cmp("… CPU per cross-agent job, both agents and both redis-servers, from /proc (vs CPU per raw request/response, both raw hosts)",
		t.fig(far, "cpu-µs/op"), t.fig(far, "raw-cpu-µs/op"), µs, "≤ 2×", atMost(2))
	const accum = "BenchmarkLeanAccumulation"
	t.cmp("noop jobs/s in the last two blocks of 5,000 after 150,000 jobs, retention on its defaults (vs the first two blocks of the same run)",
		t.fig(accum, "last-jobs/s"), t.fig(accum, "first-jobs/s"), rate, "≥ 0.95×", atLeast(0.95))
	t.cmp("… the median block after 100,000 jobs (vs the median of the first four blocks; single blocks swing)",
		t.fig(accum, "late-median-jobs/s"), t.fig(accum, "first-median-jobs/s"), rate, "", nil)
	t.abs("… the share of the CPUs the hypervisor stole during that run (the blocks swing with it)",
		t.fig(accum, "steal-%"), pct, "", nil)
	t.cmp("… the store's used memory at the end (vs after the first block; its peak in the log)",
		t.fig(accum, "redis-MiB-end"), t.fig(accum, "redis-MiB-first"), mib, "flat once retention bites", nil)
	for _, n := range []string{"1", "20"} {
		idle := "BenchmarkIdleAgent/contexts=" + n
		t.cmpOurs("idle agent, fresh, default store, "+n+" context(s): agent CPU (vs an idle asynq worker process, default 1 s poll)",
			t.fig(idle, "agent-cpu-%"), t.fig("BenchmarkAsynqIdle", "proc-cpu-%"), pct, "≤ 0.2 %", atMost(0.2))
		t.cmpOurs("… its redis-server's CPU (vs the asynq worker's redis-server)",
			t.fig(idle, "redis-cpu-%"), t.fig("BenchmarkAsynqIdle", "redis-cpu-%"), pct, "≤ 0.2 %", atMost(0.2))
		t.cmp("… the same (vs a bare redis-server, the embedded store's arguments, no client, idling in the same window)",
			t.fig(idle, "redis-cpu-%"), t.fig(idle, "bare-redis-cpu-%"), pct, "", nil)
		t.cmp("… Redis commands/s (vs the asynq worker's)",
			t.fig(idle, "redis-cmds/s"), t.fig("BenchmarkAsynqIdle", "redis-cmds/s"), perSec, "", nil)
		t.cmpOurs("… agent RSS (vs the asynq worker's)",
			t.fig(idle, "rss-MiB"), t.fig("BenchmarkAsynqIdle", "rss-MiB"), mib, "≤ 32 MiB", atMost(32))
	}
	t.abs("idle redis-server alone, the embedded store's arguments, no client but the meter: CPU (the floor under the store rows; IdleRedisServer)",
		t.fig("BenchmarkIdleRedisServer", "redis-cpu-%"), pct, "", nil)
	t.cmpOurs("start-up to the API answering (node.info on the socket), embedded store, fresh data dir, p50 (vs redis-server alone with the embedded store's arguments to PONG, p50)",
		t.fig("BenchmarkAgentStartup", "p50-ms"), t.fig("BenchmarkRedisServerStartup", "p50-ms"), ms, "≤ 50 ms", atMost(50))
}

func pct(v float64) string    { return fmt.Sprintf("%.2f %%", v) }
func perSec(v float64) string { return fmt.Sprintf("%.1f/s", v) }

// cmpOurs is cmp with an absolute target on ours (met when meets(ours)),
// the baseline beside it for scale; a zero baseline shows no ratio.
func (t *table) cmpOurs(what string, ours, base fig, show func(float64) string, target string, meets func(float64) bool) {
	t.cmp(what, ours, base, show, target, nil)
	rows := t.rows[t.groups[len(t.groups)-1]]
	r := &rows[len(rows)-1]
	if ours.ok {
		r.met = verdict(meets(ours.v))
		if base.ok && base.v == 0 {
			r.ratio = "—"
		}
	}
}

// leanCPU: CPU per job, ours = agent + submitters + redis-server, asynq's
// = its process + redis-server, the parts in the cells.
func (t *table) leanCPU(what, ours, asynq string) {
	sum := func(name string, parts ...string) (fig, string) {
		f, cell := fig{ok: true}, ""
		for i, p := range parts {
			g := t.fig(name, p+"-cpu-µs/op")
			if !g.ok {
				return g, ""
			}
			f.v += g.v
			if i > 0 {
				cell += " + "
			}
			cell += fmt.Sprintf("%s %.0f", map[string]string{"agent": "agent", "self": "process", "redis": "redis"}[p], g.v)
		}
		return f, fmt.Sprintf(" (%s; ≤ %.0f jobs/s on %d CPUs)", cell, float64(runtime.NumCPU())*1e6/f.v, runtime.NumCPU())
	}
	o, oc := sum(ours, "agent", "self", "redis")
	a, ac := sum(asynq, "self", "redis")
	t.cmp(what, o, a, µs, "≤ 1.0×", atMost(1.0))
	rows := t.rows[t.groups[len(t.groups)-1]]
	if o.ok && a.ok {
		rows[len(rows)-1].ours += oc
		rows[len(rows)-1].base += ac
	}
}
