package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The runner PRD's guards (seed 003: "Idempotency / Dedupe", "Poison
// Messages"), through the Redis contract with the fields DESIGN §8 names
// (the seeds name none): jobs in context 15 (dagContext), ids 700-719.

// ended waits for job key to end and returns its hash.
func ended(t *testing.T, c *redis.Client, key string) map[string]string {
	t.Helper()
	var h map[string]string
	eventually(t, key+" ended", func() bool {
		h = c.HGetAll(context.Background(), key).Val()
		return h["status"] == "finished" || h["status"] == "error"
	})
	return h
}

// Two jobs with one idempotency_key: the first runs, the second does not
// run and ends error naming the first (duplicate_of).
func TestIdempotencyKeyRunsOnce(t *testing.T) {
	c := dagContext(t)
	ctx := t.Context()
	first := seedJob(t, c, dagCtx, 700, "print('first')", "[]", "[]", false)
	second := seedJob(t, c, dagCtx, 701, "print('second')", "[]", "[]", false)
	for _, k := range []string{first, second} {
		if err := c.HSet(ctx, k, "idempotency_key", "conf-order-700").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.LPush(ctx, "queue:python", first).Err(); err != nil {
		t.Fatal(err)
	}
	if h := ended(t, c, first); h["status"] != "finished" {
		t.Fatalf("the first job with the key: %v", h)
	}
	if err := c.LPush(ctx, "queue:python", second).Err(); err != nil {
		t.Fatal(err)
	}
	h := ended(t, c, second)
	if h["status"] != "error" || h["duplicate_of"] != first || !strings.Contains(h["error"], "duplicate") {
		t.Fatalf("the second job with the key: status %q duplicate_of %q error %q; want error, duplicate of %s",
			h["status"], h["duplicate_of"], h["error"], first)
	}
}

// A queue entry that names no job is quarantined as a dead letter with
// its reason, not retried for ever nor dropped in silence.
func TestPoisonEntryIsQuarantined(t *testing.T) {
	c := dagContext(t)
	ctx := t.Context()
	const ghost = "job:1:719"
	if err := c.LPush(ctx, "queue:python", ghost).Err(); err != nil {
		t.Fatal(err)
	}
	var letters []map[string]any
	eventually(t, "a dead letter for "+ghost, func() bool {
		letters = nil
		call(t, "deadletter.list", map[string]any{"context": dagCtx}, &letters)
		for _, l := range letters {
			if l["key"] == ghost {
				return true
			}
		}
		return false
	})
}
