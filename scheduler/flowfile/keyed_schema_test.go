package flowfile_test

import (
	"os"
	"testing"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// The schema takes the keys of ordering per key as the parser does, and
// refuses what both can tell is wrong.
func TestSchemaAgreesOnConcurrencyKeys(t *testing.T) {
	s := loadSchema(t)
	ok := "env: {DEV: d1}\njobs:\n  a: {type: sh, script: x, concurrency_key: 'dev-${DEV}', max_in_flight: 2}\n" +
		"  b: {type: sh, script: x, concurrency_key: 'order-${HYPHAE_CORRELATION_ID}'}\n"
	if _, _, err := flowfile.Parse([]byte(ok), "ok.yaml", t.TempDir()); err != nil {
		t.Errorf("the parser refuses: %v", err)
	}
	if err := flowschema.Validate(s, []byte(ok)); err != nil {
		t.Errorf("the schema refuses: %v", err)
	}
	for _, bad := range []string{
		"jobs:\n  a: {type: sh, script: x, max_in_flight: 2}\n",
		"jobs:\n  a: {type: sh, script: x, concurrency_key: k, max_in_flight: 0}\n",
		"jobs:\n  a: {type: sh, script: x, concurrency_key: k, max_in_flight: many}\n",
		"jobs:\n  a: {type: sh, script: x, concurrency_key: [k]}\n",
	} {
		if _, _, err := flowfile.Parse([]byte(bad), "bad.yaml", t.TempDir()); err == nil {
			t.Errorf("the parser accepts:\n%s", bad)
		}
		if err := flowschema.Validate(s, []byte(bad)); err == nil {
			t.Errorf("the schema accepts:\n%s", bad)
		}
	}
}

// The flows docs/flow-control.md shows are valid for the parser and the
// schema.
func TestFlowControlDocFlowsAreValid(t *testing.T) {
	s := loadSchema(t)
	b, err := os.ReadFile("../../docs/flow-control.md")
	if err != nil {
		t.Fatal(err)
	}
	flows := flowschema.Snippets(b)
	if len(flows) == 0 {
		t.Fatal("docs/flow-control.md shows no flow")
	}
	for i, text := range flows {
		if _, _, err := flowfile.Parse([]byte(text), "doc.yaml", t.TempDir()); err != nil {
			t.Errorf("flow %d: the parser refuses: %v\n%s", i, err, text)
		}
		if err := flowschema.Validate(s, []byte(text)); err != nil {
			t.Errorf("flow %d: the schema refuses: %v\n%s", i, err, text)
		}
	}
}
