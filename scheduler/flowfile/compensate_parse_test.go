package flowfile_test

import (
	"os"
	"strings"
	"testing"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// A compensation takes the fields of a job that say what and where it
// runs, and no others.
func TestCompensateParse(t *testing.T) {
	_, _, err := flowfile.Parse([]byte(`
jobs:
  a:
    type: sh
    script: 'true'
    compensate: {type: sh, script: 'true', needs: a}
  b: {type: sh, script: 'true', compensate: {script: 'true'}}
`), "f.yaml", t.TempDir())
	if err == nil {
		t.Fatal("parsed a compensate with needs and one without type")
	}
	for _, want := range []string{`job "a": unknown key "needs"`, `job "b": missing type`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	f, _, err := flowfile.Parse([]byte(`
jobs:
  a: {type: sh, script: 'true', compensate: {type: bash, script: 'echo undo', retries: 2, timeout: 1m, env: {X: "1"}}}
`), "f.yaml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if c := f.Job("a").Compensate; c == nil || c.Type != "bash" || c.Retries != 2 || c.Env["X"] != "1" {
		t.Fatalf("compensate %+v", c)
	}
}

// The flows docs/sagas.md and docs/time.md show are accepted by the
// parser and the schema.
func TestSagaDocsExamplesValidate(t *testing.T) {
	s := loadSchema(t)
	n := 0
	for _, md := range []string{"../../docs/sagas.md", "../../docs/time.md"} {
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range flowschema.Snippets(b) {
			n++
			if _, _, err := flowfile.Parse([]byte(text), md, "../../configs/flows"); err != nil {
				t.Errorf("%s: the parser refuses: %v\n%s", md, err, text)
			}
			if err := flowschema.Validate(s, []byte(text)); err != nil {
				t.Errorf("%s: the schema refuses: %v\n%s", md, err, text)
			}
		}
	}
	if n < 3 {
		t.Fatalf("found %d example flows", n)
	}
}
