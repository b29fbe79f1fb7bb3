package bridge

import (
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// A context a seed client writes only in its own DB (context:<N> in DB N,
// no registry copy in DB 0) is adopted: registered and served — a job
// sent to it is accepted; one whose hash cannot be read is refused, saying
// why on the hash itself (docs/design.md, "How Hyphae reads the specifications it follows": never silently ignored).
func TestContextWrittenOnlyInItsOwnDBIsAdoptedOrRefused(t *testing.T) {
	t.Parallel()
	n := newFakeNet()
	a, b := newSide(t, n, nil), newSide(t, n, nil)
	a.context(t, 1)
	ctx := t.Context()
	actor, err := b.st.Registry.EnsureActor(ctx, a.name())
	if err != nil {
		t.Fatal(err)
	}
	ids := `[` + u64(actor.ID) + `]`
	if err := b.db(t, 5).HSet(ctx, "context:5", "id", "5", "admins", ids, "readers", "[]",
		"executors", ids, "created_at", "1700000000", "updated_at", "1700000000").Err(); err != nil {
		t.Fatal(err)
	}
	if err := b.db(t, 6).HSet(ctx, "context:6", "id", "9", "admins", "[]").Err(); err != nil {
		t.Fatal(err)
	}

	poll.Eventually(t, waitFor, "context 5 registered and served", func() bool {
		reg, _ := b.st.Registry.ContextIDs(ctx)
		return slices.Contains(reg, 5) && slices.Contains(b.b.contextIDs(), 5)
	})
	j := a.submit(t, 1, 5, b.name(), "echo adopted", 0)
	if got := b.onlyJob(t, 5); got.Script != "echo adopted" {
		t.Fatalf("job in the adopted context = %+v", got)
	}
	b.finish(t, 5, jobKey(b.onlyJob(t, 5)), nil)
	if got := a.waitEnded(t, 1, jobKey(j)); got.Status != model.JobFinished {
		t.Fatalf("job sent to the adopted context = %s %q", got.Status, got.Error)
	}

	var why string
	poll.Eventually(t, waitFor, "context 6 refused on its hash", func() bool {
		why, _ = b.db(t, 6).HGet(ctx, "context:6", "error").Result()
		return why != ""
	})
	if !strings.HasPrefix(why, store.RefusedPrefix) || !strings.Contains(why, "says id 9") {
		t.Fatalf("context:6 error = %q, want the reason it is not served", why)
	}
	if reg, _ := b.st.Registry.ContextIDs(ctx); slices.Contains(reg, 6) {
		t.Fatalf("refused context 6 registered: %v", reg)
	}
}
