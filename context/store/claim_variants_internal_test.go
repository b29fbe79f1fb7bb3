package store

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// A plain job is claimed by the plain variant alone; a job with a
// concurrency key by the plain one, which hands it back untouched, and
// then the keyed one: no other variant is ever loaded.
func TestClaimRunsOnlyTheGatesAJobNeeds(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, testredis.Start(t).URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db, err := s.DB(1)
	if err != nil {
		t.Fatal(err)
	}
	loaded := func() []string {
		var out []string
		for v := range gateAll + 1 {
			ok, err := db.ScriptExists(ctx, claimScript(v).Hash()).Result()
			if err != nil {
				t.Fatal(err)
			}
			if ok[0] {
				out = append(out, claimScriptName(v))
			}
		}
		return out
	}
	claim := func(key string, fields ...any) {
		t.Helper()
		db.HSet(ctx, key, append([]any{"status", "dispatched", "script_type", "noop"}, fields...)...)
		db.LPush(ctx, QueueKey("noop"), key)
		c, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"noop"}, time.Minute, false)
		if err != nil || c == nil || c.JobKey != key || c.Verdict != VerdictRun {
			t.Fatalf("ClaimJob = %+v, %v; want %s to run", c, err, key)
		}
	}
	claim(JobKey(1, 1))
	if got := loaded(); len(got) != 1 || got[0] != "claim_plain" {
		t.Fatalf("after a plain job the loaded claim scripts are %v, want [claim_plain]", got)
	}
	claim(JobKey(1, 2), "concurrency_key", "k")
	if got := loaded(); len(got) != 2 || got[1] != "claim_keyed" {
		t.Fatalf("after a keyed job the loaded claim scripts are %v, want [claim_plain claim_keyed]", got)
	}
}
