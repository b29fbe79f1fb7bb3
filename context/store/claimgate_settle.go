package store

// The settle gate refuses nothing: before the claim pops, it settles the
// jobs parked for a prerequisite whose re-check time has come (a bounded
// batch, recheckPrereqs in jobs_deps.go): met, back on their queue;
// impossible, ended error and announced. A prerequisite key is written
// with a plain SET that runs no script, so the check rides on the
// runners' claims (jobs_deps.go says why). A variant without it asks
// prereq_waiting whether any is due (one ZRANGEBYSCORE, as the re-check
// itself) and, when one is, pops nothing and asks for this gate.
//
// Reads and writes: prereq_waiting, deps_waiting, and for each job due:
// its hash, prereq:<name>, its queue, and when it ends its reply list,
// jobs_done, remote_done and the jobs that wait for it.
var settleGate = claimGate{
	name:    "settle",
	flag:    gateSettle,
	phase:   phaseSettle,
	refuses: "none; it settles the jobs parked for a prerequisite whose re-check time has come",
	lua:     []string{luaAnnounceEnd},
	call:    "recheckPrereqs(ARGV[8], ARGV[7], KEYS[5], KEYS[6], ARGV[6])",
	needs:   "#redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', ARGV[8], 'LIMIT', 0, 1) > 0",
	touches: []string{"prereq:<name>, the hashes, queues and reply lists of the jobs re-checked"},
}
