package flowfile_test

import (
	"os"
	"testing"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// schedule: takes a cron line (seconds optional), a descriptor, a time
// zone and the policies; anything else is an error before anything runs.
func TestParseSchedule(t *testing.T) {
	for text, ok := range map[string]bool{
		`'0 3 * * *'`:      true,
		`'*/10 0 3 * * *'`: true,
		`'@every 5m'`:      true,
		`{cron: '0 3 * * *', timezone: Europe/Brussels}`:                    true,
		`{cron: '0 3 * * *', catch_up: run_once, overlap: cancel_previous}`: true,
		`'0 3 * *'`:     false,
		`'@every soon'`: false,
		`{cron: '0 3 * * *', timezone: Mars/Base}`: false,
		`{cron: '0 3 * * *', catch_up: always}`:    false,
		`{cron: '0 3 * * *', overlap: queue}`:      false,
		`{timezone: UTC}`:                          false,
		`{cron: '0 3 * * *', every: 1}`:            false,
	} {
		_, _, err := flowfile.Parse([]byte("context: 1\nschedule: "+text+"\njobs:\n  a: {type: sh, script: 'true'}\n"), "f.yaml", t.TempDir())
		if (err == nil) != ok {
			t.Errorf("schedule: %s: error %v, want ok=%v", text, err, ok)
		}
	}
}

// The example flows of docs/time.md are accepted by the parser and the
// schema.
func TestTimeDocFlowsValidate(t *testing.T) {
	b, err := os.ReadFile("../../docs/time.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := flowschema.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	flows := flowschema.Snippets(b)
	if len(flows) < 3 {
		t.Fatalf("found %d flows in docs/time.md", len(flows))
	}
	for i, text := range flows {
		if _, _, err := flowfile.Parse([]byte(text), "time.md", t.TempDir()); err != nil {
			t.Errorf("flow %d: the parser refuses it: %v\n%s", i, err, text)
		}
		if err := flowschema.Validate(s, []byte(text)); err != nil {
			t.Errorf("flow %d: the schema refuses it: %v\n%s", i, err, text)
		}
	}
}
