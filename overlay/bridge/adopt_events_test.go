package bridge

import (
	"slices"
	"testing"

	"github.com/hyphae-run/hyphae/internal/poll"
)

// A context hash a raw Redis client writes in its own DB once the bridge
// has made its first full pass is adopted when it is written (the keyspace
// notification of the write), not at the next full pass, which comes
// later than the wait here.
func TestContextWrittenAfterStartIsAdoptedWhenWritten(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	b := newSide(t, n, nil)
	ctx := t.Context()
	// A refused hash, marked by the first full pass: the pass is over.
	if err := b.db(t, 6).HSet(ctx, "context:6", "id", "9").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, waitFor, "context 6 refused on its hash", func() bool {
		why, _ := b.db(t, 6).HGet(ctx, "context:6", "error").Result()
		return why != ""
	})
	if err := b.db(t, 7).HSet(ctx, "context:7", "id", "7", "admins", "[]", "readers", "[]",
		"executors", "[]", "created_at", "1700000000", "updated_at", "1700000000").Err(); err != nil {
		t.Fatal(err)
	}
	poll.Eventually(t, waitFor, "context 7 registered", func() bool {
		reg, _ := b.st.Registry.ContextIDs(ctx)
		return slices.Contains(reg, 7)
	})
}
