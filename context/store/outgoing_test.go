package store_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// Ids from NextIDs never collide with each other, with a second agent's
// store on the same Redis, nor with a plain client's INCR seq:job.
func TestNextIDsUniqueAcrossStoresAndClients(t *testing.T) {
	ctx := ctCtx(t)
	s1, srv := ctOpen(t)
	s2, err := store.Open(ctx, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer raw.Close()
	seen := map[uint64]string{}
	note := func(id uint64, who string) {
		if prev, dup := seen[id]; dup {
			t.Fatalf("job id %d handed out twice (%s, then %s)", id, prev, who)
		}
		seen[id] = who
	}
	for i := 0; i < 100; i++ {
		for _, s := range []*store.Store{s1, s2} {
			ids, err := s.Jobs.NextIDs(ctx, 1, "job", "message")
			if err != nil {
				t.Fatal(err)
			}
			note(ids[0], "NextIDs")
		}
		n, err := raw.Incr(ctx, store.SeqKey("job")).Uint64()
		if err != nil {
			t.Fatal(err)
		}
		note(n, "INCR")
	}
	if len(seen) != 300 {
		t.Fatalf("%d distinct ids, want 300", len(seen))
	}
}

// Dispatch records a message, its job and its outbox entry and takes the
// entry off its processing list, all or nothing; AwaitAdd puts it on
// awaiting_result (CompleteSentJob settles it: complete_sent_test.go).
func TestDispatch(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer raw.Close()
	const mk, jk = "message:1:5", "job:1:9"
	if err := raw.LPush(ctx, store.MsgOutProcessingKey, mk).Err(); err != nil {
		t.Fatal(err)
	}
	next := time.Now().Add(3 * time.Second)
	err := s.Bus.Dispatch(ctx, 1, store.Outgoing{Message: mk, Fields: model.Hash{"status": "dispatched", "dst": "peer"},
		Job: jk, JobFields: model.Hash{"runner": "peer"}, Next: next,
		Processing: store.MsgOutProcessingKey, Done: mk})
	if err != nil {
		t.Fatal(err)
	}
	if v := raw.HGet(ctx, jk, "runner").Val(); v != "peer" {
		t.Fatalf("job runner = %q", v)
	}
	if sc := raw.ZScore(ctx, store.OutboxKey, mk).Val(); int64(sc) != next.UnixMilli() {
		t.Fatalf("outbox score %v, want %d", sc, next.UnixMilli())
	}
	if n := raw.LLen(ctx, store.MsgOutProcessingKey).Val(); n != 0 {
		t.Fatalf("processing list still holds %d", n)
	}
	if err := s.Bus.AwaitAdd(ctx, 1, mk, next); err != nil {
		t.Fatal(err)
	}
	if sc := raw.ZScore(ctx, store.AwaitingKey, mk).Val(); int64(sc) != next.UnixMilli() {
		t.Fatalf("awaiting_result score %v, want %d", sc, next.UnixMilli())
	}
}

// A chat or mail message received twice under the same (sender, ref) — a
// resend after a lost ack — lands on msg_in once; another ref or sender
// lands again.
func TestReceiveMessageOncePerRef(t *testing.T) {
	ctx := ctCtx(t)
	s, srv := ctOpen(t)
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer raw.Close()
	msg := func() *model.Message {
		return &model.Message{CallerID: 3, ContextID: 1, MessageType: model.MsgTypeChat,
			Status: model.MsgProcessed, Message: "hello"}
	}
	for i, c := range []struct {
		sender, ref string
		created     bool
		inbox       int64
	}{
		{"peerA", "5/message:1:1", true, 1},
		{"peerA", "5/message:1:1", false, 1}, // the resend
		{"peerA", "5/message:1:2", true, 2},
		{"peerB", "5/message:1:1", true, 3},
	} {
		m := msg()
		created, err := s.Bus.ReceiveMessage(ctx, 1, c.sender, c.ref, m)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := raw.LLen(ctx, store.MsgInKey).Result()
		if created != c.created || n != c.inbox {
			t.Fatalf("delivery %d: created %v, msg_in has %d; want %v, %d", i, created, n, c.created, c.inbox)
		}
		if h, _ := raw.HGetAll(ctx, store.MessageKey(3, m.ID)).Result(); created && h["message"] != "hello" {
			t.Fatalf("delivery %d: message hash %v", i, h)
		}
	}
}
