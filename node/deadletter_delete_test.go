package node_test

import (
	"context"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// deadletter.delete removes a key's dead letters from what deadletter.list
// shows, leaves the others, and refuses a call without a key.
func TestDeadLetterDeleteMethod(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	for _, k := range []string{"job:1:7", "job:1:8"} {
		if err := a.Store().Queues.PushDeadLetter(context.Background(), 1, store.DeadLetter{Key: k, Reason: "invalid job"}); err != nil {
			t.Fatal(err)
		}
	}
	var del struct {
		Deleted int64 `json:"deleted"`
	}
	a.call(t, "deadletter.delete", map[string]any{"context": 1, "key": "job:1:7"}, &del)
	if del.Deleted != 1 {
		t.Fatalf("deadletter.delete answered deleted=%d; want 1", del.Deleted)
	}
	var left []store.DeadLetter
	a.call(t, "deadletter.list", map[string]any{"context": 1}, &left)
	if len(left) != 1 || left[0].Key != "job:1:8" {
		t.Fatalf("deadletter.list after the delete: %+v; want only job:1:8", left)
	}
	if err := a.client.Call(context.Background(), "deadletter.delete", map[string]any{"context": 1}, nil); err == nil {
		t.Fatal("deadletter.delete without a key was accepted")
	}
}
