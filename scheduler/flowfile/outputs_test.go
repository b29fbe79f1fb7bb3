package flowfile_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// outputs: a pattern or a list; absolute paths, a way out of the job's
// directory and bad globs are refused naming the job; a misspelt key
// gets a did-you-mean.
func TestOutputsKey(t *testing.T) {
	f, _, err := flowfile.Parse([]byte("name: backup\njobs:\n  dump:\n    type: sh\n    script: x\n    outputs: [db.sql.gz, \"logs/*.log\"]\n  one:\n    type: sh\n    script: x\n    outputs: out\n"), "f.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Job("dump").Outputs; !slices.Equal(got, []string{"db.sql.gz", "logs/*.log"}) {
		t.Fatalf("dump outputs %v", got)
	}
	if got := f.Job("one").Outputs; !slices.Equal(got, []string{"out"}) {
		t.Fatalf("one outputs %v", got)
	}
	for _, tc := range []struct{ v, want string }{
		{"/etc/passwd", "is absolute"},
		{"../up", "leaves the job's directory"},
		{"\"[\"", "is not a valid glob"},
		{"{a: b}", "want a path or glob"},
	} {
		_, _, err := flowfile.Parse([]byte("name: x\njobs:\n  a:\n    type: sh\n    script: x\n    outputs: "+tc.v+"\n"), "f.yaml", "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "a") {
			t.Errorf("outputs %s: %v, want %q", tc.v, err, tc.want)
		}
	}
	_, _, err = flowfile.Parse([]byte("name: x\njobs:\n  a:\n    type: sh\n    script: x\n    output: x\n"), "f.yaml", "")
	if err == nil || !strings.Contains(err.Error(), `"outputs"`) {
		t.Fatalf("misspelt: %v", err)
	}
}
