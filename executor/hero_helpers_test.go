package executor_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// heroHarness starts a runner serving hero worker w1 and returns a DB 0
// client: the hero dispatcher protocol's side.
func heroHarness(t *testing.T) (*harness, *redis.Client) {
	t.Helper()
	h := newHarness(t)
	cfg := h.config()
	cfg.WorkerID = "w1"
	h.start(t, cfg)
	return h, h.client(t, 0)
}

// heroJob writes hero:job:<id> as a seed 004 client does (HSET).
func heroJob(t *testing.T, c *redis.Client, id, script string, fields ...any) {
	t.Helper()
	all := append([]any{"id", id, "script", script, "status", "dispatched"}, fields...)
	if err := c.HSet(context.Background(), "hero:job:"+id, all...).Err(); err != nil {
		t.Fatal(err)
	}
}

// heroPush submits ids on hero:work_queue:w1 (LPUSH), in order.
func heroPush(t *testing.T, c *redis.Client, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := c.LPush(context.Background(), "hero:work_queue:w1", id).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// heroAwait BLPOPs hero:reply:<id> and returns the reply with the job's
// hash as it is then.
func heroAwait(t *testing.T, c *redis.Client, id string) (string, map[string]string) {
	t.Helper()
	ctx := context.Background()
	res, err := c.BLPop(ctx, waitLimit, "hero:reply:"+id).Result()
	if err != nil {
		t.Fatalf("reply of hero job %s: %v", id, err)
	}
	return res[1], c.HGetAll(ctx, "hero:job:"+id).Val()
}
