package store

import (
	"strconv"
	"strings"

	"github.com/hyphae-run/hyphae/context/model"
)

// Keys and channels of the runner (executor). Like keys.go, these helpers
// are the only place these names are built.

// ProcessingKey is processing:<runner_id> (context DB): the jobs a runner
// took from its queues and has not finished yet. Taking a job moves it
// atomically from queue:<type> into this list, so a crash loses nothing.
func ProcessingKey(runnerID string) string { return "processing:" + runnerID }

// LeasesKey is the ZSET (context DB) of leased jobs: member = job key,
// score = lease expiry in unix milliseconds. The owner renews it; a reaper
// puts back jobs whose lease expired.
const LeasesKey = "leases"

// LeaseOwnersKey is the hash (context DB) job key → "<attempt> <runner_id>":
// who holds the lease in LeasesKey, for which attempt, for a lease taken
// before the owner moved into the job's hash (LeaseField), or of a key
// that is no job hash.
const LeaseOwnersKey = "lease_owners"

// StopKey is stop:<job key> (context DB), a string holding the attempt that
// was stopped ("0" = any attempt). A queued job with a marker never starts;
// a running one is killed by the runner that holds it.
func StopKey(jobKey string) string { return "stop:" + jobKey }

// StopChannel is the pub/sub channel (server-wide) on which stop requests
// are announced as "<context id> <job key> <attempt>", so the runner
// holding the job kills it at once instead of at its next heartbeat.
const StopChannel = "hyphae:stop"

// LogChannel is the pub/sub channel on which new lines of a job's log are
// announced (payload: the log list's new length). Pub/sub channels are not
// per DB, so the name carries the context: logs:<context id>:<job key>.
func LogChannel(ctxID uint64, jobKey string) string { return "logs:" + u(ctxID) + ":" + jobKey }

// HeroProcessingKey is hero:processing:<worker_id> (DB 0): hero job ids a
// worker took from its work queue and has not answered yet.
func HeroProcessingKey(worker string) string { return "hero:processing:" + worker }

// queueEventPattern matches the keyspace notifications of every context's
// queue:<type> lists.
const queueEventPattern = "__keyspace@*__:queue:*"

// ParseQueueEvent reads a keyspace notification channel
// (__keyspace@<db>__:queue:<type>) into its DB and script type.
func ParseQueueEvent(channel string) (db uint64, scriptType string, ok bool) {
	rest, ok := strings.CutPrefix(channel, "__keyspace@")
	if !ok {
		return 0, "", false
	}
	num, key, ok := strings.Cut(rest, "__:")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, "", false
	}
	t, ok := strings.CutPrefix(key, "queue:")
	return n, t, ok
}

// LeaseField is the job hash's field that names the runner holding its
// lease, "<attempt> <runner_id>" ("" or absent: none; luaLease).
const LeaseField = model.JobLeaseField

// leaseOwner encodes a lease owner value.
func leaseOwner(attempt int64, runnerID string) string {
	return strconv.FormatInt(attempt, 10) + " " + runnerID
}

// parseLeaseOwner decodes a lease_owners value.
func parseLeaseOwner(v string) (attempt int64, runnerID string, ok bool) {
	a, r, ok := strings.Cut(v, " ")
	if !ok {
		return 0, "", false
	}
	n, err := strconv.ParseInt(a, 10, 64)
	return n, r, err == nil
}
