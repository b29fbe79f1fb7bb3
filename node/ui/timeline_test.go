package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// timelineCardScript renders the job page's attempts and timeline
// (timelineCard in views.js, with dom.js) against a minimal fake DOM under
// Node.js, as jobPageScript does, and prints the whole text under "text", the
// attempts' rows under "attempts" (their cells joined by " | ") and the
// timeline's lines under "timeline".
const timelineCardScript = fakeDOM + `
ctx.tl = JSON.parse(fs.readFileSync(0, 'utf8'));
const card = vm.runInContext('timelineCard(tl)', ctx);
const out = {text: card.textContent, attempts: [], timeline: []};
const walk = e => {
  if (!(e instanceof Elem)) return;
  if (e.tag === 'tr' && e.attrs['data-attempt'] !== undefined) out.attempts.push(e.kids.map(k => k.textContent).join(' | '));
  if (e.tag === 'li' && e.attrs['data-event'] !== undefined) out.timeline.push(e.textContent);
  e.kids.forEach(walk);
};
walk(card);
process.stdout.write(JSON.stringify(out));
`

// renderTimelineCard runs timelineCardScript on the embedded assets for tl.
func renderTimelineCard(t *testing.T, tl *wire.TimelineView) (text string, attempts, timeline []string) {
	t.Helper()
	in, _ := json.Marshal(tl) // as job.timeline sends it (omitempty fields left out)
	b := runPageScript(t, timelineCardScript, string(in))
	var out struct {
		Text     string   `json:"text"`
		Attempts []string `json:"attempts"`
		Timeline []string `json:"timeline"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("card %s: %v", b, err)
	}
	return out.Text, out.Attempts, out.Timeline
}

// The job page's attempts and timeline of a job retried twice, as
// job.timeline sends them: the created entry (attempt 0, left out of the
// JSON) and an attempt that took under a millisecond (duration 0, left
// out) show no "undefined" nor "NaN"; every failed attempt shows its
// status, end, duration and error.
func TestJobPageTimelineRendersEveryAttempt(t *testing.T) {
	const t0 = 1_700_000_000_000
	tl := &wire.TimelineView{Key: "job:1:1",
		Timeline: []wire.TimelineEvent{
			{AtMS: t0, Event: "created", Detail: "dispatched"},
			{AtMS: t0 + 10, Event: "started", Attempt: 1, Detail: "runner-a"},
			{AtMS: t0 + 10, Event: "error", Attempt: 1, Detail: "attempt 1: exit status 7 (retrying)"},
			{AtMS: t0 + 1010, Event: "retry", Attempt: 2},
			{AtMS: t0 + 1020, Event: "started", Attempt: 2, Detail: "runner-a"},
			{AtMS: t0 + 1270, Event: "error", Attempt: 2, Detail: "attempt 2: exit status 7 (retrying)"},
			{AtMS: t0 + 3270, Event: "retry", Attempt: 3},
			{AtMS: t0 + 3280, Event: "started", Attempt: 3, Detail: "runner-a"},
			{AtMS: t0 + 3500, Event: "finished", Attempt: 3},
		},
		Attempts: []wire.AttemptView{
			{Attempt: 1, Status: "error", QueuedMS: t0, StartedMS: t0 + 10, EndedMS: t0 + 10, Runner: "runner-a",
				Error: "attempt 1: exit status 7 (retrying)"},
			{Attempt: 2, Status: "error", QueuedMS: t0 + 1010, StartedMS: t0 + 1020, EndedMS: t0 + 1270, DurationMS: 250,
				Runner: "runner-a", Error: "attempt 2: exit status 7 (retrying)"},
			{Attempt: 3, Status: "finished", QueuedMS: t0 + 3270, StartedMS: t0 + 3280, EndedMS: t0 + 3500, DurationMS: 220,
				Runner: "runner-a"},
		}}
	for i := range tl.Timeline {
		tl.Timeline[i].At = "2023-11-14T22:13:20.000Z"
	}
	text, attempts, timeline := renderTimelineCard(t, tl)
	for _, bad := range []string{"undefined", "NaN", "null"} {
		if strings.Contains(text, bad) {
			t.Errorf("the job's timeline card shows %q:\n%s", bad, text)
		}
	}
	if len(attempts) != 3 {
		t.Fatalf("attempt rows %q; want 3", attempts)
	}
	for i, want := range [][]string{{"1 | error", "0.000s", "exit status 7"}, {"2 | error", "0.250s", "exit status 7"},
		{"3 | finished", "0.220s"}} {
		for _, w := range want {
			if !strings.Contains(attempts[i], w) {
				t.Errorf("attempt row %d %q lacks %q", i+1, attempts[i], w)
			}
		}
		if strings.Count(attempts[i], "—") > 0 {
			t.Errorf("attempt row %d %q has a cell left blank (—); every attempt ended", i+1, attempts[i])
		}
	}
	if len(timeline) != len(tl.Timeline) || !strings.Contains(timeline[0], "created attempt 1") {
		t.Errorf("timeline lines %q; want %d, the first 'created attempt 1'", timeline, len(tl.Timeline))
	}
}
