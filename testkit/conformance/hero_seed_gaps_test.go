package conformance

import (
	"os"
	"strings"
	"testing"
)

// Seed 004 "Job Security: Validate script content before execution": a
// job whose script is empty (or only blanks) has nothing to run; it ends
// error and says why, where a worker that ran it would call it finished.
func TestHeroEmptyScriptEndsError(t *testing.T) {
	w := startHeroWorker(t)
	for _, script := range []string{"", " \n\t"} {
		id := uuid4()
		w.job(t, id, script)
		w.submit(t, id)
		rep, hj := w.await(t, id)
		if hj["status"] != "error" || !strings.Contains(hj["error"], "script") {
			t.Errorf("script %q: status %q error %q (reply %q), want error naming the script", script, hj["status"], hj["error"], rep)
		}
	}
}

// Seed 004 "prerequisites: JSON array of job IDs that must complete before
// this job": the job named may be written after the one naming it (a
// client stores and submits jobs one by one). The dependent waits for it —
// its timeout bounds that wait — and runs once it finished; a job naming
// one that is never written ends error at its timeout.
func TestHeroPrerequisiteWrittenLater(t *testing.T) {
	w := startHeroWorker(t)
	m := t.TempDir()
	up, down := uuid4(), uuid4()
	w.job(t, down, `[ -e `+m+`/up_done ] && echo after || echo before`, "prerequisites", `["`+up+`"]`)
	w.submit(t, down)
	// up is written only once down has been taken and waits: it is no
	// longer on the queue, and has not ended.
	eventually(t, "the dependent to be taken", func() bool {
		return w.c.LLen(t.Context(), "hero:work_queue:"+w.id).Val() == 0
	})
	if st := w.c.HGet(t.Context(), "hero:job:"+down, "status").Val(); st == "error" || st == "finished" {
		t.Fatalf("a job whose prerequisite is not written yet ended %q at once: %v", st,
			w.c.HGetAll(t.Context(), "hero:job:"+down).Val())
	}
	w.job(t, up, `touch `+m+`/up_done`)
	w.submit(t, up)
	if rep, hj := w.await(t, down); rep != "after\n" || hj["status"] != "finished" {
		t.Fatalf("dependent of a job written later: reply %q, job %v", rep, hj)
	}
	never := uuid4()
	w.job(t, never, `touch `+m+`/never_ran`, "prerequisites", `["`+uuid4()+`"]`, "timeout", "2")
	w.submit(t, never)
	if _, hj := w.await(t, never); hj["status"] != "error" {
		t.Fatalf("a job whose prerequisite is never written: %v, want error at its timeout", hj)
	}
	if _, err := os.Stat(m + "/never_ran"); err == nil {
		t.Fatal("a job whose prerequisite was never written ran")
	}
}
