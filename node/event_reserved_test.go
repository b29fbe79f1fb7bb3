package node_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/crypto/identity"
	"github.com/hyphae-run/hyphae/node/api"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// The names message.*, flow.* and job.* are the agent's own events
// (received chat and mail, flow.finished, job.ended): event.publish
// refuses them, locally and with to, naming the reserved prefixes, and
// stores nothing; so does the raw msg_out contract. A trigger may still
// listen for them.
func TestEventPublishReservedNamesRefused(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	addTrigger(t, a, "name: on-mail\ncontext: 1\non: {event: message.mail}\njobs:\n  j: {type: sh, script: 'true'}\n")
	for _, p := range []map[string]any{
		{"context": 1, "name": "message.mail", "data": map[string]any{"message": "hi", "from": a.peerID()}},
		{"context": 1, "name": "message.chat", "data": map[string]any{}},
		{"context": 1, "name": "flow.finished", "data": map[string]any{"flow": "x", "status": "finished"}},
		{"context": 1, "name": "job.ended", "data": map[string]any{}},
		{"context": 1, "name": "Job.x", "data": map[string]any{}},
		{"context": 1, "name": "message.mail", "to": a.peerID(), "data": map[string]any{}},
	} {
		err := a.client.Call(t.Context(), "event.publish", p, nil)
		var e *api.Error
		if !errors.As(err, &e) || e.Code != api.CodeInvalidParams || !strings.Contains(e.Message, "reserved") ||
			!strings.Contains(e.Message, "message., flow., job.") {
			t.Errorf("event.publish %v: %v; want invalid params naming the reserved prefixes", p, err)
		}
	}
	// The raw contract: a client's local event of a reserved name ends error.
	db := a.redis.Client(t, 1)
	if err := db.HSet(t.Context(), "message:1:950", "message_type", "event", "event_name", "message.mail",
		"message", `{"message": "hi"}`, "message_format_type", "json").Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.LPush(t.Context(), "msg_out", "message:1:950").Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the raw reserved event refused", func() bool {
		st, _ := messageStatus(t, a, 1, "message:1:950")
		return st == "error"
	})
	if _, why := messageStatus(t, a, 1, "message:1:950"); !strings.Contains(why, "reserved") {
		t.Errorf("the raw reserved event's error %q: want it to say the name is reserved", why)
	}
	var evs []wire.EventView
	a.call(t, "event.list", map[string]any{"context": 1}, &evs)
	for _, e := range evs {
		if e.Key != "message:1:950" { // the client's own hash stays, status error
			t.Fatalf("a refused event.publish stored %+v", e)
		}
	}
	if runs := flowsNamed(t, a, 1, "on-mail"); len(runs) != 0 {
		t.Fatalf("a refused event started %d runs", len(runs))
	}
}

// A trigger's where: {from: PEER} matches the event's sender — the signer
// of a received event, this agent for its own — never a "from" field of
// the payload: an executor that writes another peer's ID there does not
// pass for it.
func TestEventTriggerFromIsTheSigner(t *testing.T) {
	t.Parallel()
	other, err := identity.Generate()
	if err != nil {
		t.Fatal(err)
	}
	forged := other.PeerID().String()
	a := startAgent(t, agentOpts{})
	b := startAgent(t, agentOpts{bootstrap: []string{a.addr(t)}})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	b.call(t, "context.create", map[string]any{"id": 1}, nil)
	a.call(t, "context.grant", map[string]any{"id": 1, "actor": b.peerID(), "role": "executor"}, nil)
	waitPeerUp(t, b, a.peerID())
	fromFlow := func(name, from string) string {
		return "name: " + name + "\ncontext: 1\non: {event: order.created, where: {from: " + from + "}}\n" +
			"jobs:\n  j: {type: sh, script: 'echo \"data=$HYPHAE_EVENT\" >> \"$HYPHAE_RESULT\"'}\n"
	}
	addTrigger(t, a, fromFlow("from-other", forged))
	addTrigger(t, a, fromFlow("from-b", b.peerID()))
	addTrigger(t, a, fromFlow("from-a", a.peerID()))

	// b's event claims, in its payload, to come from the other peer.
	publish(t, b, wire.EventPublishParams{Context: 1, To: a.peerID(), Name: "order.created",
		Data: json.RawMessage(`{"order_id": "o-1", "from": "` + forged + `"}`)})
	if v := waitRun(t, a, 1, "from-b"); v.Status != "finished" ||
		!strings.Contains(jobOf(t, v, "j").Result["data"], forged) {
		t.Fatalf("the run for b's event: %s, %v", v.Status, jobOf(t, v, "j").Result)
	}
	// a's own event, with the same forged payload, is a's.
	publish(t, a, wire.EventPublishParams{Context: 1, Name: "order.created",
		Data: json.RawMessage(`{"order_id": "o-2", "from": "` + forged + `"}`)})
	waitRun(t, a, 1, "from-a")

	// Each event was matched against every trigger at once: both are handled.
	if runs := flowsNamed(t, a, 1, "from-other"); len(runs) != 0 {
		t.Fatalf("a payload's from passed for the other peer: %d runs of from-other", len(runs))
	}
	if n, m := len(flowsNamed(t, a, 1, "from-b")), len(flowsNamed(t, a, 1, "from-a")); n != 1 || m != 1 {
		t.Fatalf("runs of from-b %d, from-a %d; want 1 each (b's event, a's own)", n, m)
	}
}
