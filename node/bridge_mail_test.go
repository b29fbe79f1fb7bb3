package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// TestBridgeChatLandsOnce: a chat message to a context where the sender is
// a reader lands on the target's msg_in and the origin's message ends
// processed; the same message sent again (as after a lost ack) is
// acknowledged again but stored once.
func TestBridgeChatLandsOnce(t *testing.T) {
	t.Parallel()
	b := startAgent(t, agentOpts{})
	a := startAgent(t, agentOpts{bootstrap: []string{b.addr(t)}})
	b.call(t, "context.create", map[string]any{"id": 2}, nil)
	b.call(t, "context.grant", map[string]any{"id": 2, "actor": a.peerID(), "role": "reader"}, nil)
	a.call(t, "context.create", map[string]any{"id": 5}, nil) // the origin context

	var m wire.MessageView
	a.call(t, "message.create", map[string]any{"context": 2, "from_context": 5, "dst": b.peerID(),
		"message_type": "chat", "message": "hello from a"}, &m)
	eventually(t, 60*time.Second, "the chat to be processed", func() bool {
		return hashField(t, a, 5, m.Key, "status") == "processed"
	})
	inbox := func() []string {
		keys, err := dbOf(t, b.redis, 2).LRange(context.Background(), store.MsgInKey, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return keys
	}
	got := inbox()
	if len(got) != 1 || hashField(t, b, 2, got[0], "message") != "hello from a" {
		t.Fatalf("target msg_in = %v, want one message saying hello", got)
	}

	// Send it again: the same message key, so the same ref.
	if err := dbOf(t, a.redis, 5).LPush(context.Background(), store.MsgOutKey, m.Key).Err(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 60*time.Second, "the resend to be acknowledged", func() bool { // b acks after storing
		return metricValue(t, a, `hyphae_bus_messages_in_total{type="ack"}`) >= 2
	})
	if got := inbox(); len(got) != 1 {
		t.Fatalf("after a resend, target msg_in = %v, want the one message", got)
	}
}
