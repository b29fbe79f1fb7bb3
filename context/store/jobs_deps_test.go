package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// depJob writes a plain seed-style job hash and pushes it on queue:sh.
func depJob(t *testing.T, raw *redis.Client, id, deps, prereqs string) string {
	t.Helper()
	key := "job:7:" + id
	ctx := context.Background()
	if err := raw.HSet(ctx, key, "id", id, "caller_id", "7", "context_id", "1", "script", "true",
		"script_type", "sh", "status", "dispatched", "dependends", deps, "prerequisites", prereqs).Err(); err != nil {
		t.Fatal(err)
	}
	if err := raw.LPush(ctx, "queue:sh", key).Err(); err != nil {
		t.Fatal(err)
	}
	return key
}

func depClaim(t *testing.T, s *store.Store) *store.Claim {
	t.Helper()
	c, err := s.Queues.ClaimJob(context.Background(), 1, "r1", []string{"sh"}, time.Minute, false)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Job 401 names 400 in dependends: it is not claimed while 400 runs; it
// waits, visibly, and is claimed once 400 has finished.
func TestClaimParksJobUntilUpstreamFinishes(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	depJob(t, raw, "400", "[]", "[]")
	depJob(t, raw, "401", "[400]", "[]")

	if c := depClaim(t, s); c == nil || c.JobKey != "job:7:400" || c.Verdict != store.VerdictRun {
		t.Fatalf("first claim: %+v", c)
	}
	if c := depClaim(t, s); c != nil {
		t.Fatalf("401 claimed while 400 runs: %+v", c)
	}
	if st := raw.HGet(ctx, "job:7:401", "status").Val(); st != string(model.JobWaiting) {
		t.Fatalf("401 status %q, want waiting_for_prerequisites", st)
	}
	if err := s.Jobs.CompleteJob(ctx, 1, "job:7:400", 1, model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	if c := depClaim(t, s); c == nil || c.JobKey != "job:7:401" || c.Verdict != store.VerdictRun {
		t.Fatalf("claim after 400 finished: %+v", c)
	}
	if n := raw.HLen(ctx, store.DepsWaitingKey).Val(); n != 0 {
		t.Fatalf("%d jobs still parked", n)
	}
}

// An upstream job that ends error makes its dependents impossible: they
// end error saying why, down the chain, and their waiters wake.
func TestUpstreamErrorEndsDependentsImpossible(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	depJob(t, raw, "400", "[]", "[]")
	depJob(t, raw, "401", "[400]", "[]")
	depJob(t, raw, "402", `["401"]`, "[]")
	depClaim(t, s)
	if c := depClaim(t, s); c != nil {
		t.Fatalf("a dependent was claimed: %+v", c)
	}
	if err := s.Jobs.CompleteJob(ctx, 1, "job:7:400", 1, model.JobError, model.Hash{"error": "exit 1"}); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"job:7:401": "impossible: job 400 ended error",
		"job:7:402": "impossible: job 401 ended error"} {
		h := raw.HGetAll(ctx, key).Val()
		if h["status"] != "error" || h["error"] != want {
			t.Fatalf("%s: status %q error %q, want error %q", key, h["status"], h["error"], want)
		}
		if r := raw.LRange(ctx, store.ReplyKey(key), 0, -1).Val(); len(r) != 1 || r[0] != "error" {
			t.Fatalf("%s reply list %v", key, r)
		}
	}
	if c := depClaim(t, s); c != nil {
		t.Fatalf("claim after the chain ended: %+v", c)
	}
}

// A job whose upstream has already ended is settled by its first claim:
// run when it finished, ended error when it failed.
func TestClaimSettlesJobsWhoseUpstreamEnded(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:7:1", "id", "1", "status", "finished")
	raw.HSet(ctx, "job:7:2", "id", "2", "status", "error")
	depJob(t, raw, "10", "[1]", "[]")
	depJob(t, raw, "11", "[2]", "[]")
	if c := depClaim(t, s); c == nil || c.JobKey != "job:7:10" || c.Verdict != store.VerdictRun {
		t.Fatalf("job after a finished one: %+v", c)
	}
	if c := depClaim(t, s); c != nil {
		t.Fatalf("job after a failed one was claimed: %+v", c)
	}
	if h := raw.HGetAll(ctx, "job:7:11").Val(); h["status"] != "error" || h["error"] != "impossible: job 2 ended error" {
		t.Fatalf("job after a failed one: %v", h)
	}
}

// A prerequisite is a name, met when prereq:<name> exists: the job waits
// until then, and a later claim starts it.
func TestPrerequisiteWaitsForItsKey(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	depJob(t, raw, "5", "[]", `["file:/srv/data.csv"]`)
	if c := depClaim(t, s); c != nil {
		t.Fatalf("claimed before its prerequisite: %+v", c)
	}
	if st := raw.HGet(ctx, "job:7:5", "status").Val(); st != string(model.JobWaiting) {
		t.Fatalf("status %q, want waiting_for_prerequisites", st)
	}
	jobs, err := s.Jobs.ListJobs(ctx, 1)
	if err != nil || len(jobs) != 1 || jobs[0].Prerequisites[0] != "file:/srv/data.csv" {
		t.Fatalf("ListJobs with a named prerequisite: %v %v", jobs, err)
	}
	raw.Set(ctx, store.PrereqKey("file:/srv/data.csv"), "1", 0)
	var got *store.Claim
	ctEventually(t, "the job claimed once its prerequisite exists", func() bool {
		got = depClaim(t, s)
		return got != nil
	})
	if got.JobKey != "job:7:5" || got.Verdict != store.VerdictRun {
		t.Fatalf("claim: %+v", got)
	}
}

// Stopping a parked job takes it out of the waiting set, as it takes a
// queued one off its queue.
func TestTakeQueuedTakesAParkedJob(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	depJob(t, raw, "6", "[99]", "[]")
	if c := depClaim(t, s); c != nil {
		t.Fatalf("claimed: %+v", c)
	}
	_, ok, err := s.Queues.TakeQueued(ctx, 1, "job:7:6", "sh", "r1", 1, time.Minute)
	if err != nil || !ok {
		t.Fatalf("TakeQueued of a parked job: %v %v", ok, err)
	}
	if n := raw.HLen(ctx, store.DepsWaitingKey).Val(); n != 0 {
		t.Fatalf("%d jobs still parked", n)
	}
}

// A flow's scheduler orders its jobs: the claim does not hold a flow job
// for its dependends.
func TestFlowJobsAreNotHeldForDependends(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	key := depJob(t, raw, "8", "[99]", "[]")
	raw.HSet(ctx, key, "flow_id", "3", "upstream_in", "dependends")
	if c := depClaim(t, s); c == nil || c.JobKey != key || c.Verdict != store.VerdictRun {
		t.Fatalf("flow job: %+v", c)
	}
}
