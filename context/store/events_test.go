package store_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

func evMessage(name, data string) *model.Message {
	return &model.Message{CallerID: 1, ContextID: 1, MessageType: model.MsgTypeEvent, Message: data,
		MessageFormatType: model.EventFormat, Extra: model.Hash{model.ExtraEventName: name}}
}

// A received event is stored once per (sender, ref), and put on msg_in
// and the events list with the message.
func TestReceiveEventOnce(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	for range 2 {
		if _, err := s.Events.ReceiveEvent(ctx, 1, "peerB", "1/message:1:5", evMessage("order.created", `{}`)); err != nil {
			t.Fatal(err)
		}
	}
	db := srv.Client(t, 1)
	in, _ := db.LLen(ctx, store.MsgInKey).Result()
	evs, _ := db.LLen(ctx, store.EventsKey).Result()
	if in != 1 || evs != 1 {
		t.Fatalf("msg_in %d, events %d: want the event once on each", in, evs)
	}
}

// A wait parked after its event was seen finds it; one parked before is
// among the waits the event returns; an event of another correlation
// finds neither.
func TestParkWaitAndSeeEvent(t *testing.T) {
	s, _ := ctOpen(t)
	ctx := ctCtx(t)
	deadline := time.Now().Add(time.Hour)
	w1 := store.Wait{Job: "job:1:1", Attempt: 1, Name: "paid", Field: "order_id", Value: "o-1", Deadline: deadline}
	seen, err := s.Events.ParkWait(ctx, 1, "wait_for:processing:x", w1)
	if err != nil || seen != "" {
		t.Fatalf("park before any event: %q, %v", seen, err)
	}
	if ms, _ := s.Events.SeeEvent(ctx, 1, "paid", store.WaitCorr("order_id", "o-2"), "message:1:9"); len(ms) != 0 {
		t.Fatalf("another order's event found waits %v", ms)
	}
	ms, err := s.Events.SeeEvent(ctx, 1, "paid", w1.Corr(), "message:1:10")
	if err != nil || !slices.Equal(ms, []string{store.WaitMember("job:1:1", 1)}) {
		t.Fatalf("the order's event found %v, %v: want the parked wait", ms, err)
	}
	w2 := w1
	w2.Job = "job:1:2"
	if seen, _ := s.Events.ParkWait(ctx, 1, "wait_for:processing:x", w2); seen != "message:1:10" {
		t.Fatalf("a wait parked after the event found %q, want it", seen)
	}
	if fs, _ := s.Events.WaitFields(ctx, 1, "paid"); !slices.Equal(fs, []string{"order_id"}) {
		t.Fatalf("wait fields %v", fs)
	}
	if err := s.Events.Unpark(ctx, 1, "paid", w1.Corr(), store.WaitMember("job:1:1", 1)); err != nil {
		t.Fatal(err)
	}
	ms, _ = s.Events.SeeEvent(ctx, 1, "paid", w1.Corr(), "message:1:11")
	if !slices.Equal(ms, []string{store.WaitMember("job:1:2", 1)}) {
		t.Fatalf("after unparking job 1: %v", ms)
	}
}

// A received chat message goes on the events list only while the context
// has triggers: without one, nothing could use it there.
func TestReceivedChatIsAnEventOnlyWithTriggers(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	chat := func(ref string) {
		m := &model.Message{CallerID: 1, ContextID: 1, MessageType: model.MsgTypeChat, Message: "hi"}
		if _, err := s.Events.ReceiveEvent(ctx, 1, "peerB", ref, m); err != nil {
			t.Fatal(err)
		}
	}
	db := srv.Client(t, 1)
	chat("1/message:1:1")
	if n, _ := db.LLen(ctx, store.EventsKey).Result(); n != 0 {
		t.Fatalf("events %d without triggers, want 0", n)
	}
	if err := s.Events.SaveTrigger(ctx, 1, "on-chat", `{}`); err != nil {
		t.Fatal(err)
	}
	chat("1/message:1:2")
	if n, _ := db.LLen(ctx, store.EventsKey).Result(); n != 1 {
		t.Fatalf("events %d with a trigger, want 1", n)
	}
	if n, _ := db.LLen(ctx, store.MsgInKey).Result(); n != 2 {
		t.Fatalf("msg_in %d, want both chats", n)
	}
}
