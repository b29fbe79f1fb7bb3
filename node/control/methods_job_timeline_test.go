package control

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Attempts drawn from a timeline: a failed attempt, a retry that went to
// another agent and finished there.
func TestAttemptsOfTimeline(t *testing.T) {
	es := []store.TimelineEntry{
		{TimeMS: 1000, Event: "created", Attempt: 1, Detail: "dispatched"},
		{TimeMS: 1100, Event: "started", Attempt: 1, Detail: "runner-a"},
		{TimeMS: 1600, Event: "error", Attempt: 1, Detail: "exit status 1"},
		{TimeMS: 2000, Event: "retry", Attempt: 2},
		{TimeMS: 2100, Event: "sent", Attempt: 2, Detail: "peer-b"},
		{TimeMS: 3100, Event: "finished", Attempt: 2, Detail: "result from its runner"},
	}
	got := attemptsOf(es)
	want := []wire.AttemptView{
		{Attempt: 1, Status: "error", QueuedMS: 1000, StartedMS: 1100, EndedMS: 1600, DurationMS: 500, Runner: "runner-a", Error: "exit status 1"},
		{Attempt: 2, Status: "finished", QueuedMS: 2000, EndedMS: 3100, SentTo: "peer-b"},
	}
	if len(got) != len(want) {
		t.Fatalf("attempts = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("attempt %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}

// A timeline recorded before requeues wrote the end of the attempt they
// replace: that attempt ends error when the next began, not "started" for
// ever; an attempt stopped while waiting to retry keeps its first end.
func TestAttemptsOfEndEveryAttemptButTheLast(t *testing.T) {
	es := []store.TimelineEntry{
		{TimeMS: 1000, Event: "created", Detail: "dispatched"},
		{TimeMS: 1100, Event: "started", Attempt: 1, Detail: "r"},
		{TimeMS: 2100, Event: "retry", Attempt: 2},
		{TimeMS: 2200, Event: "started", Attempt: 2, Detail: "r"},
		{TimeMS: 2300, Event: "error", Attempt: 2, Detail: "attempt 2: exit status 1 (retrying)"},
		{TimeMS: 2900, Event: "error", Attempt: 2, Detail: "stopped"},
	}
	got := attemptsOf(es)
	want := []wire.AttemptView{
		{Attempt: 1, Status: "error", QueuedMS: 1000, StartedMS: 1100, EndedMS: 2100, DurationMS: 1000, Runner: "r",
			Error: "no end recorded; attempt 2 followed"},
		{Attempt: 2, Status: "error", QueuedMS: 2100, StartedMS: 2200, EndedMS: 2300, DurationMS: 100, Runner: "r", Error: "stopped"},
	}
	if len(got) != len(want) {
		t.Fatalf("attempts = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("attempt %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
}
