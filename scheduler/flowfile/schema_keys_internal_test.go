package flowfile

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// Every key the parser takes is in the JSON Schema and in docs/flows.md,
// and the schema names no key the parser refuses: a key added to the
// parser without its documentation fails here.
func TestEveryFlowKeyIsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/flow.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       struct {
			Job struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"job"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile("../../docs/flows.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what   string
		parser []string
		schema map[string]json.RawMessage
	}{{"flow", flowKeys, schema.Properties}, {"job", jobKeys, schema.Defs.Job.Properties}} {
		for _, k := range c.parser {
			if c.schema[k] == nil {
				t.Errorf("%s key %q: missing from docs/flow.schema.json", c.what, k)
			}
			if !strings.Contains(string(ref), "| `"+k+"` |") {
				t.Errorf("%s key %q: missing from the tables of docs/flows.md", c.what, k)
			}
		}
		for k := range c.schema {
			if !slices.Contains(c.parser, k) {
				t.Errorf("docs/flow.schema.json names %s key %q, which the parser refuses", c.what, k)
			}
		}
	}
}
