package node_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// messageStatus reads a message's status and error on agent a.
func messageStatus(t *testing.T, a *agent, ctx uint64, key string) (string, string) {
	t.Helper()
	var m wire.MessageView
	a.call(t, "message.load", map[string]any{"context": ctx, "key": key}, &m)
	return m.Status, m.Fields["error"]
}

// An event sent by agent b to agent a starts the run of a's trigger, on
// a, with the event's payload and correlation id; a sender that is only
// a reader in a's context is refused, and its message says so.
func TestEventFromAnotherAgentStartsRun(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	b := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.grant", map[string]any{"id": 1, "actor": b.peerID(), "role": "reader"}, nil)
	waitPeerUp(t, b, a.peerID())
	addTrigger(t, a, onOrderFlow)

	denied := publish(t, b, wire.EventPublishParams{Context: 1, To: a.peerID(), Name: "order.created",
		Data: json.RawMessage(`{"order_id": "o-r", "kind": "book"}`)})
	eventually(t, 30*time.Second, "the reader's event refused", func() bool {
		st, _ := messageStatus(t, b, 1, denied.Key)
		return st == "error"
	})
	if _, why := messageStatus(t, b, 1, denied.Key); !strings.Contains(why, "executor") {
		t.Fatalf("refused with %q, want the missing role named", why)
	}

	a.call(t, "context.grant", map[string]any{"id": 1, "actor": b.peerID(), "role": "executor"}, nil)
	sent := publish(t, b, wire.EventPublishParams{Context: 1, To: a.peerID(), Name: "order.created",
		CorrelationID: "c-9", Data: json.RawMessage(`{"order_id": "o-9", "kind": "book"}`)})
	v := waitRun(t, a, 1, "on-order")
	res := jobOf(t, v, "reserve").Result
	if v.Status != "finished" || res["corr"] != "o-9" || v.EventID != sent.ID {
		t.Fatalf("run on a: %s, result %v, event %q; want finished for o-9, event %s", v.Status, res, v.EventID, sent.ID)
	}
	if runs := flowsNamed(t, a, 1, "on-order"); len(runs) != 1 {
		t.Fatalf("%d runs on a, want 1 (the refused event started none): %+v", len(runs), runs)
	}
	if runs := flowsNamed(t, b, 1, "on-order"); len(runs) != 0 {
		t.Fatalf("b ran the flow: %+v", runs)
	}
	var got []wire.EventView
	a.call(t, "event.list", map[string]any{"context": 1}, &got)
	if len(got) != 1 || got[0].From != b.peerID() || got[0].CorrelationID != "c-9" {
		t.Fatalf("a's events: %+v, want the one from b", got)
	}
}

// The raw Redis contract: a client that writes an event message hash and
// pushes its key on msg_out, without dst, publishes a local event; one
// whose payload is not JSON ends status error with the reason, and the
// events after it are handled.
func TestRawEventContract(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, onOrderFlow)
	db := a.redis.Client(t, 1)
	ctx := t.Context()
	put := func(key, data string) {
		t.Helper()
		if err := db.HSet(ctx, key, "message_type", "event", "event_name", "order.created",
			"message", data, "message_format_type", "json").Err(); err != nil {
			t.Fatal(err)
		}
		if err := db.LPush(ctx, "msg_out", key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	put("message:1:900", `{"order_id": "o-raw", "kind": `) // cut short
	put("message:1:901", `{"order_id": "o-raw", "kind": "book"}`)

	v := waitRun(t, a, 1, "on-order")
	if res := jobOf(t, v, "reserve").Result; v.Status != "finished" || res["corr"] != "o-raw" {
		t.Fatalf("the raw event's run: %s, %v", v.Status, res)
	}
	eventually(t, 30*time.Second, "the bad event refused", func() bool {
		st, _ := messageStatus(t, a, 1, "message:1:900")
		return st == "error"
	})
	if _, why := messageStatus(t, a, 1, "message:1:900"); !strings.Contains(why, "not JSON") {
		t.Fatalf("the bad event's error %q: want it to say the payload is not JSON", why)
	}
	if runs := flowsNamed(t, a, 1, "on-order"); len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	// Poison quarantine: the bad event is in the dead letters, with why.
	var dead []store.DeadLetter
	a.call(t, "deadletter.list", map[string]any{"context": 1}, &dead)
	if len(dead) != 1 || dead[0].Key != "message:1:900" || dead[0].Class != store.DeadInvalid ||
		!strings.Contains(dead[0].Reason, "not JSON") {
		t.Fatalf("dead letters %+v; want message:1:900, invalid, saying not JSON", dead)
	}
}

// A chat message received from another agent is the event message.chat:
// a trigger on it starts a run with the message and its sender.
func TestChatMessageTriggersRun(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	b := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.grant", map[string]any{"id": 1, "actor": b.peerID(), "role": "reader"}, nil)
	waitPeerUp(t, b, a.peerID())
	addTrigger(t, a, "name: on-chat\ncontext: 1\non: {event: message.chat, where: {from: "+b.peerID()+"}}\n"+
		"jobs:\n  read: {type: sh, script: 'printf \"got=%s\\n\" \"$HYPHAE_EVENT\" >> \"$HYPHAE_RESULT\"'}\n")
	b.call(t, "message.create", map[string]any{"context": 1, "dst": a.peerID(), "message_type": "chat",
		"message": "hello a"}, nil)
	v := waitRun(t, a, 1, "on-chat")
	if got := jobOf(t, v, "read").Result["got"]; !strings.Contains(got, `"message":"hello a"`) ||
		!strings.Contains(got, b.peerID()) {
		t.Fatalf("the run got %s: want the chat and its sender", got)
	}
}
