package store_test

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A job id a caller chose is kept, a second create of it is refused, and
// the agent's own allocation never hands it out — neither the counter's
// INCR (SaveJob) nor the blocks NextIDs reserved before the caller chose
// an id inside them.
func TestCallerChosenIDsAreNeverHandedOut(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	first, err := s.Jobs.NextIDs(ctx, 1, "job") // reserves a block around the ids chosen below
	if err != nil {
		t.Fatal(err)
	}
	chosen := map[uint64]bool{first[0] + 3: true, first[0] + 40: true, 500: true}
	for id := range chosen {
		j := &model.RunnerJob{ID: id, CallerID: 7, ContextID: 1, Script: "true", ScriptType: "sh"}
		if err := s.Jobs.CreateJob(ctx, j); err != nil || j.ID != id {
			t.Fatalf("CreateJob %d: %v (id %d)", id, err, j.ID)
		}
	}
	dup := &model.RunnerJob{ID: 500, CallerID: 7, ContextID: 1, Script: "x", ScriptType: "sh"}
	if err := s.Jobs.CreateJob(ctx, dup); !errors.Is(err, store.ErrExists) {
		t.Fatalf("second create of job 500: %v, want ErrExists", err)
	}
	if j, err := s.Jobs.LoadJob(ctx, 1, 7, 500); err != nil || j.Script != "true" {
		t.Fatalf("job 500 after the refused create: %+v %v", j, err)
	}
	for range 200 {
		ids, err := s.Jobs.NextIDs(ctx, 1, "job")
		if err != nil {
			t.Fatal(err)
		}
		j := &model.RunnerJob{CallerID: 7, ContextID: 1, Script: "true", ScriptType: "sh"}
		if err := s.Jobs.SaveJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		for _, id := range []uint64{ids[0], j.ID} {
			if chosen[id] {
				t.Fatalf("the agent handed out id %d, which a caller chose", id)
			}
		}
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer rdb.Close()
	if n, err := rdb.Get(ctx, store.SeqKey("job")).Uint64(); err != nil || n < 500 {
		t.Fatalf("seq:job = %d %v, want at least 500", n, err)
	}
}

// A message created with its caller's id is pushed on the list given, in
// the same step; a flow and a runner keep their ids too.
func TestCreateWithIDWritesAndPushes(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	m := &model.Message{ID: 42, CallerID: 3, ContextID: 1, MessageType: model.MsgTypeChat, Message: "hi", MessageFormatType: "md"}
	if err := s.Bus.CreateMessage(ctx, 1, m, store.MsgOutKey); err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, DB: 1})
	defer rdb.Close()
	if got, _ := rdb.LRange(ctx, store.MsgOutKey, 0, -1).Result(); len(got) != 1 || got[0] != "message:3:42" {
		t.Fatalf("msg_out = %v", got)
	}
	if f, _ := rdb.HGet(ctx, "message:3:42", "message_format_type").Result(); f != "md" {
		t.Fatalf("message_format_type %q", f)
	}
	f := &model.Flow{ID: 9, CallerID: 3, ContextID: 1, Jobs: []uint64{1, 2}, Status: model.FlowDispatched}
	r := &model.Runner{ID: 4, Pubkey: "p", Local: true}
	if err := s.Flows.CreateFlow(ctx, f); err != nil {
		t.Fatal(err)
	}
	if err := s.Registry.CreateRunner(ctx, 1, r); err != nil {
		t.Fatal(err)
	}
	if fl, err := s.Flows.LoadFlow(ctx, 1, 9); err != nil || len(fl.Jobs) != 2 {
		t.Fatalf("flow 9: %+v %v", fl, err)
	}
	if err := s.Registry.CreateRunner(ctx, 1, &model.Runner{ID: 4}); !errors.Is(err, store.ErrExists) {
		t.Fatalf("runner 4 again: %v", err)
	}
}
