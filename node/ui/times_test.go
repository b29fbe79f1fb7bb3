package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// jobTimesScript prints the job page's durations (jobTimes in views.js)
// for {job, tl} as name → text.
const jobTimesScript = fakeDOM + `
Object.assign(ctx, JSON.parse(fs.readFileSync(0, 'utf8')));
const out = {};
for (const [k, v] of vm.runInContext('jobTimes(job, tl)', ctx)) out[k] = typeof v === 'string' ? v : v.textContent;
process.stdout.write(JSON.stringify(out));
`

func renderJobTimes(t *testing.T, job map[string]any, tl *wire.TimelineView) map[string]string {
	t.Helper()
	in, _ := json.Marshal(map[string]any{"job": job, "tl": tl})
	var out map[string]string
	if b := runPageScript(t, jobTimesScript, string(in)); json.Unmarshal(b, &out) != nil {
		t.Fatalf("job times %s", b)
	}
	return out
}

// The job page says how long a job waited in the queue and how long it
// ran (its last attempt, from job.timeline), apart from the total since
// its creation, which holds both.
func TestJobPageSaysWaitedAndRan(t *testing.T) {
	const t0 = 1_700_000_000_000
	job := map[string]any{"key": "job:1:1", "status": "finished", "attempt": 2, "created_at": t0 / 1000, "updated_at": t0/1000 + 9}
	tl := &wire.TimelineView{Key: "job:1:1", Attempts: []wire.AttemptView{
		{Attempt: 1, Status: "error", QueuedMS: t0, StartedMS: t0 + 100, EndedMS: t0 + 600, DurationMS: 500},
		{Attempt: 2, Status: "finished", QueuedMS: t0 + 1000, StartedMS: t0 + 5000, EndedMS: t0 + 9250, DurationMS: 4250}}}
	got := renderJobTimes(t, job, tl)
	for k, want := range map[string]string{"waited (attempt 2)": "4.000s", "ran (attempt 2)": "4.250s"} {
		if got[k] != want {
			t.Errorf("%s shown as %q, want %q (all: %v)", k, got[k], want, got)
		}
	}
	if !strings.HasPrefix(got["total"], "9s") || !strings.Contains(got["total"], "created → ended") {
		t.Errorf("total shown as %q; want 9s, created → ended", got["total"])
	}

	// Without a timeline (a job written straight into Redis) the total
	// alone, saying what it measures.
	got = renderJobTimes(t, job, nil)
	if len(got) != 1 || !strings.Contains(got["total"], "the wait included") {
		t.Errorf("times without a timeline: %v; want the total alone, labelled", got)
	}
}
