package executor_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A job hash with an unknown status or an attempt that is no whole number
// ends error with the reason, and its end is announced as any end is: a
// client blocked on BLPOP reply:<key> gets "error". It is dead-lettered
// with the same reason, and the runner keeps serving.
func TestInvalidJobEndsAndReplies(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	want := map[string]string{
		"job:1:1": `invalid job: status "bogus" is not one of dispatched, error, finished, started, waiting_for_prerequisites`,
		"job:1:2": `invalid job: attempt "x" is not a whole number`,
	}
	replies := map[string]<-chan []string{}
	for key := range want {
		replies[key] = blpop(t, h, "reply:"+key)
	}
	submit(t, c, 1, 1, "sh", `true`, "status", "bogus")
	submit(t, c, 1, 2, "sh", `true`, "attempt", "x")
	for key, reason := range want {
		if got := <-replies[key]; len(got) != 2 || got[1] != "error" {
			t.Fatalf("BLPOP reply:%s = %v; want error", key, got)
		}
		if got := c.HGetAll(context.Background(), key).Val(); got["status"] != "error" || got["error"] != reason {
			t.Fatalf("%s = %v; want error %q", key, got, reason)
		}
	}
	waitDeadLetters(t, c, want)
	if got := waitEnd(t, c, submit(t, c, 1, 3, "sh", `true`)); got["status"] != "finished" {
		t.Fatalf("good job after invalid ones: %v", got)
	}
}

// A key pushed on a queue that is not a hash (a string, a list) is
// dead-lettered with the reason and leaves the processing list, without
// being touched; the runner keeps serving.
func TestNonHashKeyOnAQueueIsDeadLettered(t *testing.T) {
	h := newHarness(t)
	h.start(t, h.config())
	c := h.client(t, 1)
	ctx := context.Background()
	if err := c.Set(ctx, "job:1:1", "plain", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.RPush(ctx, "job:1:2", "a", "b").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.LPush(ctx, "queue:sh", "job:1:1", "job:1:2").Err(); err != nil {
		t.Fatal(err)
	}
	waitDeadLetters(t, c, map[string]string{
		"job:1:1": "invalid job: job:1:1 is a string, not a job hash",
		"job:1:2": "invalid job: job:1:2 is a list, not a job hash",
	})
	if got := waitEnd(t, c, submit(t, c, 1, 3, "sh", `true`)); got["status"] != "finished" {
		t.Fatalf("good job after the non-hash keys: %v", got)
	}
	if n := c.LLen(ctx, "processing:runner-a").Val(); n != 0 {
		t.Fatalf("processing list keeps %d entries: %v", n, c.LRange(ctx, "processing:runner-a", 0, -1).Val())
	}
	if v := c.Get(ctx, "job:1:1").Val(); v != "plain" {
		t.Fatalf("the string became %q", v)
	}
	if l := c.LRange(ctx, "job:1:2", 0, -1).Val(); strings.Join(l, ",") != "a,b" {
		t.Fatalf("the list became %v", l)
	}
}

// blpop starts a client blocked on BLPOP key, as a client of the contract
// waits for a job's end, and returns what it gets: the key and the value,
// or nothing when waitLimit passes first. (A reply pushed before the BLPOP
// begins is still there for it.)
func blpop(t *testing.T, h *harness, key string) <-chan []string {
	c := h.client(t, 1)
	got := make(chan []string, 1)
	go func() {
		v, _ := c.BLPop(context.Background(), waitLimit, key).Result()
		got <- v
	}()
	return got
}

// waitDeadLetters waits until context 1's dead_letter list holds every key
// of want, and checks each entry's reason.
func waitDeadLetters(t *testing.T, c *redis.Client, want map[string]string) {
	t.Helper()
	reasons := map[string]string{}
	waitFor(t, "the dead letters", func() bool {
		for _, raw := range mustLRange(t, c, "dead_letter") {
			var d struct{ Key, Reason string }
			if json.Unmarshal([]byte(raw), &d) == nil {
				reasons[d.Key] = d.Reason
			}
		}
		return len(reasons) >= len(want)
	})
	for key, reason := range want {
		if reasons[key] != reason {
			t.Errorf("dead letter of %s: %q; want %q", key, reasons[key], reason)
		}
	}
}
