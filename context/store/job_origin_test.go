package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/testkit/testredis"
)

// openOrigin is a Store on a fresh redis-server and a raw client of its DB 1.
func openOrigin(t *testing.T) (*store.Store, *redis.Client) {
	t.Helper()
	srv := testredis.Start(t)
	s, err := store.Open(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	raw := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	t.Cleanup(func() { _ = raw.Close() })
	return s, raw
}

// AckMessage takes an acknowledged message out of the outbox and settles
// it, once, only when the ack comes from the peer it went to; a job message
// is left for the caller to mark acknowledged. A message with no dst yet
// went to no one, so every ack of it is a stranger's and changes nothing.
func TestAckOnlyFromTheRecipient(t *testing.T) {
	ctx := context.Background()
	s, raw := openOrigin(t)
	put := func(key, typ, dst string) {
		t.Helper()
		err := s.Bus.Dispatch(ctx, 1, store.Outgoing{Message: key, Next: time.Now().Add(time.Second),
			Fields: model.Hash{"status": "dispatched", "message_type": typ, "dst": dst}})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("message:1:1", "result", "peerA")
	put("message:1:2", "job", "peerA")
	put("message:1:3", "job", "") // waiting for a runner
	for i, c := range []struct {
		key, from string
		want      store.AckOutcome
		status    string
		inOutbox  bool
	}{
		{"message:1:1", "peerB", store.AckStranger, "dispatched", true},
		{"message:1:1", "peerA", store.AckSettled, "processed", false},
		{"message:1:1", "peerA", store.AckDuplicate, "processed", false},
		{"message:1:2", "peerA", store.AckJob, "dispatched", false},
		{"message:1:3", "anyone", store.AckStranger, "dispatched", true},
		{"message:1:3", "", store.AckStranger, "dispatched", true},
	} {
		got, err := s.Bus.AckMessage(ctx, 1, c.key, c.from)
		if err != nil || got != c.want {
			t.Fatalf("ack %d of %s by %q = %q, %v; want %q", i, c.key, c.from, got, err, c.want)
		}
		st := raw.HGet(ctx, c.key, "status").Val()
		_, zerr := raw.ZScore(ctx, store.OutboxKey, c.key).Result()
		if st != c.status || (zerr == nil) != c.inOutbox {
			t.Fatalf("ack %d: status %q, in outbox %v; want %q, %v", i, st, zerr == nil, c.status, c.inOutbox)
		}
	}
	if _, err := s.Bus.AckMessage(ctx, 1, "message:1:404", "peerA"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ack of a missing message: %v, want ErrNotFound", err)
	}
}

// The typed readers return the one field asked for, "" when the hash or
// the field is missing; SentJobOf follows a job to its message's dst.
func TestTypedFieldReaders(t *testing.T) {
	ctx := context.Background()
	s, raw := openOrigin(t)
	raw.HSet(ctx, "job:1:1", "status", "started", model.ExtraMessageKey, "message:1:5")
	raw.HSet(ctx, "message:1:5", "dst", "peerA")
	raw.HSet(ctx, "job:1:2", "status", "dispatched", model.ExtraMessageKey, "message:1:6")
	raw.HSet(ctx, "message:1:6", "status", "dispatched") // not sent yet
	raw.HSet(ctx, store.FlowNodesKey(3), "build", string(model.NodeDispatched))

	for key, want := range map[string]store.SentJob{
		"job:1:1":   {MessageKey: "message:1:5", Dst: "peerA"},
		"job:1:2":   {MessageKey: "message:1:6"},
		"job:1:404": {},
	} {
		if got, err := s.Jobs.SentJobOf(ctx, 1, key); err != nil || got != want {
			t.Fatalf("SentJobOf %s = %+v, %v; want %+v", key, got, err, want)
		}
	}
	if k, err := s.Jobs.JobMessageKey(ctx, 1, "job:1:1"); err != nil || k != "message:1:5" {
		t.Fatalf("JobMessageKey = %q, %v", k, err)
	}
	if st, err := s.Jobs.LoadJobStatus(ctx, 1, "job:1:1"); err != nil || st != model.JobStarted {
		t.Fatalf("LoadJobStatus = %q, %v", st, err)
	}
	if st, err := s.Jobs.LoadJobStatus(ctx, 1, "job:1:404"); err != nil || st != "" {
		t.Fatalf("LoadJobStatus of a missing job = %q, %v", st, err)
	}
	if st, err := s.Flows.FlowNodeState(ctx, 1, 3, "build"); err != nil || st != model.NodeDispatched {
		t.Fatalf("FlowNodeState = %q, %v", st, err)
	}
	if st, err := s.Flows.FlowNodeState(ctx, 1, 3, "nope"); err != nil || st != "" {
		t.Fatalf("FlowNodeState of a missing node = %q, %v", st, err)
	}
}
