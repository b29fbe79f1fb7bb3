package bridge

import (
	"context"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/poll"
)

// A received job whose hash cannot be read (a field a client wrote by hand)
// has no result the bridge could ever send: it is dead-lettered with why and
// taken off remote_done, not retried every second for ever.
func TestUnreadableEndedJobIsDeadLettered(t *testing.T) {
	t.Parallel()
	s := newSide(t, newFakeNet(), nil)
	s.context(t, 1)
	ctx := context.Background()
	db := s.db(t, 1)
	if err := db.HSet(ctx, "job:7:1", "id", "1", "caller_id", "7", "script", "true", "script_type", "sh",
		"status", "finished", "timeout", "soon").Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.LPush(ctx, store.RemoteDoneKey, "job:7:1").Err(); err != nil {
		t.Fatal(err)
	}
	var dls []store.DeadLetter
	poll.Eventually(t, waitFor, "the job dead-lettered", func() bool {
		dls, _ = s.st.Queues.DeadLetters(ctx, 1, 10)
		return len(dls) == 1
	})
	if dls[0].Key != "job:7:1" || !strings.Contains(dls[0].Reason, "timeout") {
		t.Fatalf("dead letter %+v, want job:7:1 with a reason naming the field", dls[0])
	}
	poll.Eventually(t, waitFor, "remote_done emptied", func() bool {
		return s.llen(t, 1, store.RemoteDoneKey)+s.llen(t, 1, store.RemoteDoneProcessingKey) == 0
	})
}
