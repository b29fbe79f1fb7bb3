package store_test

import (
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/redis/go-redis/v9"
)

// Every dead letter names its class, as dead_letter:counts counts it: a
// queue entry naming no job is unusable, a job hash that cannot be run as
// it is and a timer entry that is no push entry are invalid.
func TestDeadLettersNameTheirClass(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	raw := srv.Client(t, 1)
	raw.LPush(ctx, "queue:sh", "job:1:404")
	raw.HSet(ctx, "job:1:5", "id", 5, "script", "x", "script_type", "sh", "status", "nonsense")
	raw.LPush(ctx, "queue:sh", "job:1:5")
	for range 2 {
		if _, err := s.Queues.ClaimJob(ctx, 1, "r1", []string{"sh"}, time.Minute, false); err != nil {
			t.Fatal(err)
		}
	}
	raw.ZAdd(ctx, store.TimersKey, redis.Z{Score: 1, Member: "garbage"})
	if _, _, err := s.Timing.FireDueTimers(ctx, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	dl, err := s.Queues.DeadLetters(ctx, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"job:1:404": store.DeadUnusable, "job:1:5": store.DeadInvalid, "garbage": store.DeadInvalid}
	got := map[string]string{}
	for _, d := range dl {
		got[d.Key] = d.Class
	}
	for k, c := range want {
		if got[k] != c {
			t.Errorf("dead letter %s: class %q, want %q (all: %+v)", k, got[k], c, dl)
		}
	}
	counts, _ := s.Bus.DeadLetterCounts(ctx, 1)
	if counts[store.DeadUnusable] != 1 || counts[store.DeadInvalid] != 2 {
		t.Errorf("counts %v; want unusable 1, invalid 2", counts)
	}
}
