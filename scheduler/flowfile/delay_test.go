package flowfile_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// run_at (unix seconds or RFC 3339) and delay are flow job keys; both at
// once, or a run_at that is no time, are errors before anything runs.
func TestParseRunAtAndDelay(t *testing.T) {
	f, _, err := flowfile.Parse([]byte(`context: 1
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
		_, _, err := flowfile.Parse([]byte("context: 1\njobs:\n  a: "+text+"\n"), "flow.yaml", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", text, err, want)
		}
	}
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
		_, _, err := flowfile.Parse([]byte("context: 1\njobs:\n  a: "+text+"\n  b: {type: sh, script: 'true'}\n"), "f.yaml", t.TempDir())
		if (err == nil) != ok {
			t.Errorf("%s: error %v, want ok=%v", text, err, ok)
		}
	}
}

// docs/flow.schema.json agrees with the parser on sleep steps.
func TestSleepStepAgainstTheSchema(t *testing.T) {
	s, err := flowschema.Load("../..")
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
		if _, _, err := flowfile.Parse([]byte(text), "f.yaml", t.TempDir()); (err == nil) != ok {
			t.Errorf("parser on %s: %v, want ok=%v", job, err, ok)
		}
	}
}
