package embedredis

import (
	"context"
	"slices"
	"testing"
	"time"
)

func testQueuesFIFO(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	c.LPush(ctx, "queue:sh", "job:1:1", "job:1:2")
	c.LPush(ctx, "queue:sh", "job:1:3")
	for _, want := range []string{"job:1:1", "job:1:2", "job:1:3"} {
		if got := c.RPop(ctx, "queue:sh").Val(); got != want {
			t.Fatalf("RPOP = %q, want %q (producers LPUSH, consumers take the right)", got, want)
		}
	}
}

func testListMoves(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	c.LPush(ctx, "msg_out", "m1", "m2", "m3", "m2")
	if got := c.LMove(ctx, "msg_out", "inflight", "RIGHT", "LEFT").Val(); got != "m1" {
		t.Fatalf("LMOVE = %q, want m1", got)
	}
	if n := c.LRem(ctx, "msg_out", 0, "m2").Val(); n != 2 {
		t.Fatalf("LREM removed %d, want 2", n)
	}
	c.RPush(ctx, "logs", "l1", "l2", "l3", "l4")
	if err := c.LTrim(ctx, "logs", -2, -1).Err(); err != nil {
		t.Fatalf("LTRIM: %v", err)
	}
	got := c.LRange(ctx, "logs", 0, -1).Val()
	if !slices.Equal(got, []string{"l3", "l4"}) {
		t.Fatalf("LRANGE after LTRIM = %v", got)
	}
}

func testBlockingPops(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	start := time.Now()
	if _, err := c.BRPop(ctx, time.Second, "queue:empty").Result(); err == nil {
		t.Fatal("BRPOP on an empty list returned a value")
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Fatalf("BRPOP returned after %v, before its 1s timeout", d)
	}
	pushLater(ctx, clientDB(t, s, db).LPush, "hero:reply:1", "done")
	got, err := c.BLPop(ctx, 5*time.Second, "hero:reply:1").Result()
	if err != nil || !slices.Equal(got, []string{"hero:reply:1", "done"}) {
		t.Fatalf("BLPOP = %v, %v", got, err)
	}
	pushLater(ctx, clientDB(t, s, db).LPush, "queue:sh", "job:1:9")
	got, err = c.BRPop(ctx, 5*time.Second, "queue:py", "queue:sh").Result()
	if err != nil || !slices.Equal(got, []string{"queue:sh", "job:1:9"}) {
		t.Fatalf("BRPOP = %v, %v", got, err)
	}
}

func testBlockingMove(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	pushLater(ctx, clientDB(t, s, db).LPush, "queue:sh", "job:1:5")
	got, err := c.BLMove(ctx, "queue:sh", "processing:r1", "RIGHT", "LEFT", 5*time.Second).Result()
	if err != nil || got != "job:1:5" {
		t.Fatalf("BLMOVE = %q, %v", got, err)
	}
	if l := c.LRange(ctx, "processing:r1", 0, -1).Val(); !slices.Equal(l, []string{"job:1:5"}) {
		t.Fatalf("processing list = %v", l)
	}
}

// pushLater pushes v to key from another connection after a short delay,
// while the caller blocks on key.
func pushLater[R any](ctx context.Context, push func(context.Context, string, ...any) R, key, v string) {
	go func() {
		time.Sleep(100 * time.Millisecond)
		push(ctx, key, v)
	}()
}
