package node_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/node/api/wire"
)

// A job with retries 2 whose script fails twice, then succeeds, has three
// attempts on its timeline: the two failed ones ended error, each with
// its end, duration and error, the third finished (the failed ones used
// to stay "started" for ever: a requeue wrote no end).
func TestJobTimelineEndsEveryRetriedAttempt(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	count := filepath.Join(t.TempDir(), "count")
	script := fmt.Sprintf(`n=$(cat %[1]q 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]q
[ $n -ge 3 ] || { echo "failing $n" >&2; exit 7; }`, count)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "retries": 2, "script": script}, &j)
	if got := waitJob(t, a, 1, j.Key); got.Status != "finished" || got.Attempt != 3 {
		t.Fatalf("job %+v; want finished at attempt 3", got)
	}
	var tl wire.TimelineView
	a.call(t, "job.timeline", map[string]any{"context": 1, "key": j.Key}, &tl)
	if len(tl.Attempts) != 3 {
		t.Fatalf("attempts %+v; want 3", tl.Attempts)
	}
	for i, at := range tl.Attempts[:2] {
		if at.Attempt != int64(i+1) || at.Status != "error" || at.StartedMS == 0 || at.EndedMS < at.StartedMS ||
			at.DurationMS != at.EndedMS-at.StartedMS || !strings.Contains(at.Error, "exit status 7") {
			t.Errorf("attempt %d = %+v; want error, with its start, end, duration and error (exit status 7)", i+1, at)
		}
	}
	if last := tl.Attempts[2]; last.Attempt != 3 || last.Status != "finished" || last.EndedMS == 0 || last.Error != "" {
		t.Errorf("attempt 3 = %+v; want finished, with its end", last)
	}
	var ends []string
	for _, e := range tl.Timeline {
		if e.Event == "error" || e.Event == "finished" {
			ends = append(ends, fmt.Sprintf("%s@%d", e.Event, e.Attempt))
		}
	}
	if strings.Join(ends, " ") != "error@1 error@2 finished@3" {
		t.Errorf("ends on the timeline %v; want error@1 error@2 finished@3", ends)
	}
}

// A quarantine is on the job's timeline: an entry "quarantined" with why,
// then the attempt's end (error), so the attempt it stopped ends too.
func TestJobTimelineHasTheQuarantine(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.Store().SetQuarantineAfter(2)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	var j wire.JobView
	a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "retries": 5, "script": "exit 3"}, &j)
	if got := waitJob(t, a, 1, j.Key); got.Status != "error" || !strings.Contains(got.Error, "quarantined") {
		t.Fatalf("job %+v; want error, quarantined", got)
	}
	var tl wire.TimelineView
	a.call(t, "job.timeline", map[string]any{"context": 1, "key": j.Key}, &tl)
	var q *wire.TimelineEvent
	for i, e := range tl.Timeline {
		if e.Event == store.EventQuarantined {
			q = &tl.Timeline[i]
			if i+1 >= len(tl.Timeline) || tl.Timeline[i+1].Event != "error" {
				t.Errorf("timeline %+v: the quarantine is not followed by the attempt's end", tl.Timeline)
			}
		}
	}
	if q == nil || q.Attempt != 3 || !strings.Contains(q.Detail, "2 attempts failed in a row") {
		t.Fatalf("timeline %+v; want a quarantined entry at attempt 3 saying why", tl.Timeline)
	}
	if len(tl.Attempts) != 3 {
		t.Fatalf("attempts %+v; want 3", tl.Attempts)
	}
	for _, at := range tl.Attempts {
		if at.Status != "error" || at.EndedMS == 0 || at.Error == "" {
			t.Errorf("attempt %+v; want every attempt ended error, with its error", at)
		}
	}
	if !strings.Contains(tl.Attempts[2].Error, "quarantined") {
		t.Errorf("attempt 3 = %+v; want its error to say it was quarantined", tl.Attempts[2])
	}
}
