package embedredis

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func testPubSub(t *testing.T, s *Server, db int) {
	ctx := ctxT(t)
	sub := clientDB(t, s, db).Subscribe(ctx, "job:1:1:logs")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatalf("SUBSCRIBE: %v", err)
	}
	n, err := clientDB(t, s, db).Publish(ctx, "job:1:1:logs", "line 1").Result()
	if err != nil || n != 1 {
		t.Fatalf("PUBLISH reached %d subscribers (%v), want 1", n, err)
	}
	select {
	case m := <-sub.Channel():
		if m.Payload != "line 1" {
			t.Fatalf("received %q", m.Payload)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message within 5s")
	}
}

func testMultiExec(t *testing.T, s *Server, db int) {
	ctx, c := ctxT(t), clientDB(t, s, db)
	_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, "job:1:3", "id", "3", "status", "dispatched")
		p.LPush(ctx, "queue:sh", "job:1:3")
		return nil
	})
	if err != nil {
		t.Fatalf("MULTI/EXEC: %v", err)
	}
	if c.HGet(ctx, "job:1:3", "status").Val() != "dispatched" || c.LLen(ctx, "queue:sh").Val() != 1 {
		t.Fatal("MULTI/EXEC did not apply both commands")
	}
}
