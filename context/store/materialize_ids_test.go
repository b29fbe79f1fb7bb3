package store_test

import (
	"strconv"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// A received job keeps the sender's message and job ids (seed 000: one
// message id on both sides), under the caller's local actor id; a second
// sender's job with the same ids finds them taken and gets ids of the
// context's own, overwriting nothing.
func TestMaterializeKeepsTheSendersIDs(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"bob"}, map[string]model.Role{"bob": model.RoleExecutor})
	db := srv.Client(t, int(c.ID))
	send := func(ref, script string) (string, *model.Message) {
		t.Helper()
		j := &model.RunnerJob{ID: 5001, CallerID: actor["bob"].ID, ContextID: c.ID, Script: script,
			ScriptType: "noop", Status: model.JobDispatched, Attempt: 1}
		m := &model.Message{ID: 501, CallerID: actor["bob"].ID, ContextID: c.ID, MessageType: model.MsgTypeJob,
			Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
		key, created, err := s.Bus.Materialize(ctx, c.ID, "12D3KooWbob", ref, 1, "job:1:"+ref, m, j)
		if err != nil || !created {
			t.Fatalf("materialize %s: %q %v %v", ref, key, created, err)
		}
		return key, m
	}
	key, m := send("first", "one")
	if want := store.JobKey(actor["bob"].ID, 5001); key != want || m.ID != 501 {
		t.Fatalf("first job at %s, message id %d; want %s and 501", key, m.ID, want)
	}
	other, m2 := send("second", "two")
	if other == key || m2.ID == 501 {
		t.Fatalf("the second job with the same ids went to %s, message %d: want ids of the context's own", other, m2.ID)
	}
	if got, _ := db.HGet(ctx, key, "script").Result(); got != "one" {
		t.Fatalf("%s holds script %q after the second job; want the first's, untouched", key, got)
	}
	if got, _ := db.HGet(ctx, other, "script").Result(); got != "two" {
		t.Fatalf("%s holds script %q; want the second job's", other, got)
	}
}

// Kept ids may occupy the very ids the context's counters hand out next:
// a job whose kept ids are taken still lands, on ids past every taken key,
// however many (a burst of 200 once failed here after three tries).
func TestMaterializeFallbackSkipsKeptIDs(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	actor, c := grantedContext(t, s, []string{"bob"}, map[string]model.Role{"bob": model.RoleExecutor})
	send := func(ref string, id uint64) string {
		t.Helper()
		j := &model.RunnerJob{ID: id, CallerID: actor["bob"].ID, ContextID: c.ID, Script: ref,
			ScriptType: "noop", Status: model.JobDispatched, Attempt: 1}
		m := &model.Message{ID: id, CallerID: actor["bob"].ID, ContextID: c.ID, MessageType: model.MsgTypeJob,
			Status: model.MsgAcknowledged, Job: []*model.RunnerJob{j}}
		key, created, err := s.Bus.Materialize(ctx, c.ID, "12D3KooWbob", ref, 1, "job:1:"+ref, m, j)
		if err != nil || !created {
			t.Fatalf("materialize %s: %q %v %v", ref, key, created, err)
		}
		return key
	}
	for id := uint64(1); id <= 40; id++ {
		send("kept"+strconv.FormatUint(id, 10), id)
	}
	if key := send("again", 1); key == store.JobKey(actor["bob"].ID, 1) {
		t.Fatalf("the job with taken ids went to %s, over the first", key)
	}
}
