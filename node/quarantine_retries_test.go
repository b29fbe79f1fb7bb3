package node_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/node/api/wire"
)

// Quarantine acts when the runner picks up an attempt that follows
// quarantine.after_failures failed ones: a job with fewer retries than
// that just ends error after its last attempt, not quarantined; one with
// as many is quarantined instead of running its next attempt. README.md
// says so (it said a job whose last 5 attempts failed was quarantined,
// which a job with --retries 4 never is).
func TestQuarantineNeedsAnAttemptAfterTheFailures(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentOpts{})
	a.Store().SetQuarantineAfter(2)
	a.call(t, "context.create", map[string]any{"id": 1}, nil)
	run := func(retries int) wire.JobView {
		var j wire.JobView
		a.call(t, "job.run", map[string]any{"context": 1, "type": "sh", "retries": retries, "script": "exit 3"}, &j)
		return waitJob(t, a, 1, j.Key)
	}

	short := run(1) // 2 attempts, both fail: no third to quarantine
	if short.Status != "error" || short.Attempt != 2 || strings.Contains(short.Error, "quarantined") {
		t.Fatalf("job with retries 1: %+v; want error after attempt 2, not quarantined", short)
	}
	if dl := deadLetters(t, a, 1); len(dl) != 0 {
		t.Fatalf("dead letters %+v; want none for a job that ran out of retries", dl)
	}
	long := run(2) // the third attempt is quarantined instead of run
	if long.Status != "error" || long.Attempt != 3 || !strings.Contains(long.Error, "quarantined: 2 attempts failed in a row") {
		t.Fatalf("job with retries 2: %+v; want quarantined at attempt 3", long)
	}
	if dl := deadLetters(t, a, 1); len(dl) != 1 || dl[0].Key != long.Key {
		t.Fatalf("dead letters %+v; want %s alone", dl, long.Key)
	}
	// hyphae job retry of the job that ran out of retries: its attempt 3
	// follows 2 failed ones, and is quarantined.
	a.call(t, "job.retry", map[string]any{"context": 1, "key": short.Key}, nil)
	if again := waitJob(t, a, 1, short.Key); again.Attempt != 3 || !strings.Contains(again.Error, "quarantined: 2 attempts failed in a row") {
		t.Fatalf("job.retry of %s: %+v; want quarantined at attempt 3", short.Key, again)
	}

	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, bullet, ok := strings.Cut(string(b), "- **Poison quarantine:**")
	if !ok {
		t.Fatal("README.md has no Poison quarantine bullet")
	}
	bullet, _, _ = strings.Cut(bullet, "\n- ")
	bullet = strings.Join(strings.Fields(bullet), " ")
	for _, want := range []string{"`--retries 4`", "not quarantined", "`hyphae job retry`"} {
		if !strings.Contains(bullet, want) {
			t.Errorf("README.md's Poison quarantine bullet does not say %s (what the runner does): %s", want, bullet)
		}
	}
}
