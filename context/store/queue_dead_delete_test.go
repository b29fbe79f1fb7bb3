package store_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
)

// Deleting a dead letter removes every entry for that key and no other;
// deleting it again finds none.
func TestDeleteDeadLetterRemovesOnlyThatKey(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	for _, d := range []store.DeadLetter{{Key: "job:1:1", Reason: "a"}, {Key: "job:1:2", Reason: "b"}, {Key: "job:1:1", Reason: "c"}} {
		if err := s.Queues.PushDeadLetter(ctx, 1, d); err != nil {
			t.Fatal(err)
		}
	}
	srv.Client(t, 1).LPush(ctx, store.DeadLetterKey, "not json")
	if n, err := s.Queues.DeleteDeadLetter(ctx, 1, "job:1:1"); err != nil || n != 2 {
		t.Fatalf("delete job:1:1: %d, %v; want 2 removed", n, err)
	}
	dl, err := s.Queues.DeadLetters(ctx, 1, 10)
	if err != nil || len(dl) != 1 || dl[0].Key != "job:1:2" {
		t.Fatalf("dead letters after the delete: %+v, %v; want only job:1:2", dl, err)
	}
	if l := srv.Client(t, 1).LLen(ctx, store.DeadLetterKey).Val(); l != 2 {
		t.Fatalf("dead_letter holds %d entries; want job:1:2 and the entry that is not JSON", l)
	}
	if n, err := s.Queues.DeleteDeadLetter(ctx, 1, "job:1:1"); err != nil || n != 0 {
		t.Fatalf("second delete: %d, %v; want 0", n, err)
	}
}
