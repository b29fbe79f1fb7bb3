package store_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/store"
)

// A job hash whose status or attempt is no valid value is ended error with
// the reason by the claim that takes it: its reply list gets "error" (a
// client's BLPOP reply:<key> returns), a flow job's key goes on jobs_done,
// it is dead-lettered with the same reason, and it holds no lease nor a
// place in the processing list.
func TestClaimJobEndsInvalidJobs(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.HSet(ctx, "job:1:1", "id", 1, "script", "true", "status", "bogus", "flow_id", 7)
	raw.HSet(ctx, "job:1:2", "id", 2, "script", "true", "status", "dispatched", "attempt", "x")
	raw.LPush(ctx, "queue:sh", "job:1:1", "job:1:2")

	want := map[string]string{
		"job:1:1": `invalid job: status "bogus" is not one of dispatched, error, finished, started, waiting_for_prerequisites`,
		"job:1:2": `invalid job: attempt "x" is not a whole number`,
	}
	for _, key := range []string{"job:1:1", "job:1:2"} {
		c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
		if err != nil || c == nil || c.JobKey != key || c.Verdict != store.VerdictInvalid || c.Reason != want[key] {
			t.Fatalf("claim of %s: %+v, %v", key, c, err)
		}
		if reply := raw.LRange(ctx, "reply:"+key, 0, -1).Val(); len(reply) != 1 || reply[0] != "error" {
			t.Fatalf("reply:%s = %v; want [error]", key, reply)
		}
		h := raw.HGetAll(ctx, key).Val()
		if h["status"] != "error" || h["error"] != want[key] || h["script"] != "true" {
			t.Fatalf("%s after the claim: %v", key, h)
		}
	}
	if a := raw.HGet(ctx, "job:1:2", "attempt").Val(); a != "x" {
		t.Fatalf("attempt rewritten to %q", a)
	}
	if got := raw.LRange(ctx, "jobs_done", 0, -1).Val(); len(got) != 1 || got[0] != "job:1:1" {
		t.Fatalf("jobs_done %v; want the flow job", got)
	}
	assertDeadLettered(t, s, raw, want)
}

// A key on a queue that is not a hash (a string, a list) is dead-lettered
// with the reason and leaves the processing list, untouched; the claim goes
// on with the next job.
func TestClaimJobDeadLettersNonHashKeys(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.Set(ctx, "job:1:1", "plain", 0)
	raw.RPush(ctx, "job:1:2", "a", "b")
	raw.HSet(ctx, "job:1:3", "id", 3, "script", "true", "status", "dispatched")
	raw.LPush(ctx, "queue:sh", "job:1:1", "job:1:2", "job:1:3")

	want := map[string]string{
		"job:1:1": "invalid job: job:1:1 is a string, not a job hash",
		"job:1:2": "invalid job: job:1:2 is a list, not a job hash",
	}
	for _, key := range []string{"job:1:1", "job:1:2"} {
		c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false)
		if err != nil || c == nil || c.JobKey != key || c.Verdict != store.VerdictDead || c.Reason != want[key] {
			t.Fatalf("claim of %s: %+v, %v", key, c, err)
		}
	}
	if c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil || c.JobKey != "job:1:3" || c.Verdict != store.VerdictRun {
		t.Fatalf("claim after the non-hash keys: %+v, %v", c, err)
	}
	if v := raw.Get(ctx, "job:1:1").Val(); v != "plain" {
		t.Fatalf("the string became %q", v)
	}
	if l := raw.LRange(ctx, "job:1:2", 0, -1).Val(); strings.Join(l, ",") != "a,b" {
		t.Fatalf("the list became %v", l)
	}
	if got := raw.LRange(ctx, "processing:r1", 0, -1).Val(); len(got) != 1 || got[0] != "job:1:3" {
		t.Fatalf("processing list %v; want only the runnable job", got)
	}
	assertDeadLettered(t, s, raw, want)
}

// assertDeadLettered checks that context 1's dead_letter list holds
// exactly the keys of want, each with its reason, none of them leased.
func assertDeadLettered(t *testing.T, s *store.Store, raw *redis.Client, want map[string]string) {
	t.Helper()
	ctx := ctCtx(t)
	dl, err := s.Queues.DeadLetters(ctx, 1, 10)
	if err != nil || len(dl) != len(want) {
		t.Fatalf("dead letters %+v, %v; want %v", dl, err, want)
	}
	for _, d := range dl {
		if d.Reason != want[d.Key] || d.Queue != "queue:sh" || d.Runner != "r1" {
			t.Errorf("dead letter %+v; want reason %q", d, want[d.Key])
		}
		if raw.HExists(ctx, "lease_owners", d.Key).Val() {
			t.Errorf("%s is leased", d.Key)
		}
	}
}
