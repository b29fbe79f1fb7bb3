package store_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
)

// CompleteJobWithLogs writes the lines and the end in one step: a waiter
// woken by the end finds the lines; a duplicate end, or one fenced to an
// older attempt, adds none; lines past the cap end with the cap marker.
func TestCompleteJobWithLogs(t *testing.T) {
	s, srv := ctOpen(t)
	ctx := ctCtx(t)
	const ctxID = 2
	dispatched := func(id uint64) string { return ctDispatched(t, s, ctxID, id, 2) }
	db := srv.Client(t, ctxID)
	logs := func(key string) []string {
		t.Helper()
		l, err := db.LRange(ctx, store.LogKey(key), 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}

	key := dispatched(1)
	lines := []string{"first", "second: ünïcode", ""}
	if err := s.Jobs.CompleteJobWithLogs(ctx, ctxID, key, 2, model.JobFinished, model.Hash{"error": ""}, lines, 50); err != nil {
		t.Fatal(err)
	}
	if got := logs(key); !slices.Equal(got, lines) {
		t.Errorf("log = %q, want %q", got, lines)
	}
	if v, err := db.BLPop(ctx, time.Second, store.ReplyKey(key)).Result(); err != nil || v[1] != "finished" {
		t.Errorf("reply = %v, %v; want the end announced", v, err)
	}
	err := s.Jobs.CompleteJobWithLogs(ctx, ctxID, key, 2, model.JobFinished, nil, []string{"again"}, 50)
	if !errors.Is(err, model.ErrBadTransition) {
		t.Errorf("a second end: %v, want a refused transition", err)
	}
	if got := logs(key); len(got) != len(lines) {
		t.Errorf("a refused end added lines: %q", got)
	}

	old := dispatched(2)
	if err := s.Jobs.CompleteJobWithLogs(ctx, ctxID, old, 1, model.JobError, nil, []string{"late"}, 50); !errors.Is(err, store.ErrFenced) {
		t.Errorf("an end for attempt 1 of a job at attempt 2: %v, want fenced", err)
	}
	if got := logs(old); len(got) != 0 {
		t.Errorf("a fenced end added lines: %q", got)
	}

	capped := dispatched(3)
	if err := s.Jobs.CompleteJobWithLogs(ctx, ctxID, capped, 0, model.JobError, nil, []string{"a", "b", "c"}, 2); err != nil {
		t.Fatal(err)
	}
	if got := logs(capped); !slices.Equal(got, []string{"a", "b", store.LogCapMarker}) {
		t.Errorf("capped log = %q", got)
	}
}
