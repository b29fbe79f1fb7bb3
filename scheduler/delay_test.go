package scheduler_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/context/model"
	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler"
)

// run_at (unix seconds or RFC 3339) and delay are flow job keys; both at
// once, or a run_at that is no time, are errors before anything runs.
func TestParseRunAtAndDelay(t *testing.T) {
	f, _, err := scheduler.Parse([]byte(`context: 1
jobs:
  a: {type: sh, script: 'true', run_at: 1800000000}
  b: {type: sh, script: 'true', run_at: "2027-01-15T08:00:00+01:00"}
  c: {type: sh, script: 'true', delay: 30m}
`), "flow.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if a := f.Job("a"); a.RunAt.Unix() != 1800000000 {
		t.Errorf("a: run_at %v", a.RunAt)
	}
	if b := f.Job("b"); !b.RunAt.Equal(time.Date(2027, 1, 15, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("b: run_at %v", b.RunAt)
	}
	if c := f.Job("c"); c.Delay != 30*time.Minute || !c.RunAt.IsZero() {
		t.Errorf("c: delay %v run_at %v", c.Delay, c.RunAt)
	}
	for text, want := range map[string]string{
		`{type: sh, script: 'true', run_at: 1800000000, delay: 1m}`: "not both",
		`{type: sh, script: 'true', run_at: tomorrow}`:              "run_at",
		`{type: sh, script: 'true', delay: soon}`:                   "delay",
	} {
		_, _, err := scheduler.Parse([]byte("context: 1\njobs:\n  a: "+text+"\n"), "flow.yaml", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", text, err, want)
		}
	}
}

// A flow job with a delay is dispatched when ready with run_at = then +
// delay; the runner's claim holds it back in the timers, and it runs when
// the timers fire it.
func TestFlowJobDelayWaitsInTheTimers(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	before := time.Now()
	fl := e.run(t, s, "jobs:\n  later: {type: sh, script: 'true', delay: 1h}\n")
	key := store.JobKey(fl.CallerID, fl.Jobs[0])
	db := e.srv.Client(t, ctxID)
	eventually(t, "the delayed job on its queue", func() bool {
		return db.LLen(e.ctx, store.QueueKey("sh")).Val() == 1
	})
	after := time.Now()
	at, ok := store.ParseRunAt(db.HGet(e.ctx, key, store.RunAtField).Val())
	if !ok || at.Before(before.Add(time.Hour).Truncate(time.Second)) || at.After(after.Add(time.Hour)) {
		t.Fatalf("run_at %v, want dispatch time + 1h (%v .. %v)", at, before.Add(time.Hour), after.Add(time.Hour))
	}
	if cl, err := e.st.ClaimJob(e.ctx, ctxID, "r", []string{"sh"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("claim before its time: %+v, %v", cl, err)
	}
	if n, _, err := e.st.FireDueTimers(e.ctx, ctxID, at); err != nil || n != 1 {
		t.Fatalf("fire at run_at: %d, %v", n, err)
	}
	cl, err := e.st.ClaimJob(e.ctx, ctxID, "r", []string{"sh"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != key {
		t.Fatalf("claim when due: %+v, %v; want %s", cl, err, key)
	}
}

// `sleep: 1h` is a step that only waits: a noop job held in the timers
// for an hour, after which the flow goes on.
func TestFlowSleepStep(t *testing.T) {
	e := newEnv(t, 0)
	s := e.sched(t, e.config())
	fl := e.run(t, s, "jobs:\n  nap: {sleep: 1h}\n  after: {type: sh, script: 'true', needs: nap}\n")
	nap := store.JobKey(fl.CallerID, fl.Jobs[0])
	db := e.srv.Client(t, ctxID)
	eventually(t, "the sleep step on its queue", func() bool {
		return db.LLen(e.ctx, store.QueueKey("noop")).Val() == 1
	})
	if cl, err := e.st.ClaimJob(e.ctx, ctxID, "r", []string{"noop"}, time.Minute, false); err != nil || cl != nil {
		t.Fatalf("claim of the sleep step before its hour: %+v, %v", cl, err)
	}
	at, _ := store.ParseRunAt(db.HGet(e.ctx, nap, store.RunAtField).Val())
	if n, _, err := e.st.FireDueTimers(e.ctx, ctxID, at); err != nil || n != 1 {
		t.Fatalf("fire: %d, %v", n, err)
	}
	cl, err := e.st.ClaimJob(e.ctx, ctxID, "r", []string{"noop"}, time.Minute, false)
	if err != nil || cl == nil || cl.JobKey != nap {
		t.Fatalf("claim after its hour: %+v, %v", cl, err)
	}
	if err := e.st.CompleteLeased(e.ctx, ctxID, cl.Lease, "r", model.JobFinished, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the next step dispatched", func() bool {
		return db.LLen(e.ctx, store.QueueKey("sh")).Val() == 1
	})
}

// A sleep step takes nothing but its duration.
func TestParseSleepStep(t *testing.T) {
	for text, ok := range map[string]bool{
		`{sleep: 30m}`:                 true,
		`{sleep: 30m, needs: b}`:       true,
		`{sleep: 30m, type: sh}`:       false,
		`{sleep: 30m, script: 'true'}`: false,
		`{sleep: 30m, delay: 1m}`:      false,
		`{sleep: 0s}`:                  false,
		`{sleep: later}`:               false,
	} {
		_, _, err := scheduler.Parse([]byte("context: 1\njobs:\n  a: "+text+"\n  b: {type: sh, script: 'true'}\n"), "f.yaml", t.TempDir())
		if (err == nil) != ok {
			t.Errorf("%s: error %v, want ok=%v", text, err, ok)
		}
	}
}

// docs/flow.schema.json agrees with the parser on sleep steps.
func TestSleepStepAgainstTheSchema(t *testing.T) {
	s, err := flowschema.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	for job, ok := range map[string]bool{
		`{sleep: 30m, needs: b}`:       true,
		`{sleep: 30m, type: sh}`:       false,
		`{sleep: 30m, script: 'true'}`: false,
		`{sleep: 30m, delay: 1m}`:      false,
		`{script: 'true'}`:             false,
	} {
		text := "context: 1\njobs:\n  a: " + job + "\n  b: {type: sh, script: 'true'}\n"
		if err := flowschema.Validate(s, []byte(text)); (err == nil) != ok {
			t.Errorf("schema on %s: %v, want ok=%v", job, err, ok)
		}
		if _, _, err := scheduler.Parse([]byte(text), "f.yaml", t.TempDir()); (err == nil) != ok {
			t.Errorf("parser on %s: %v, want ok=%v", job, err, ok)
		}
	}
}
