package demo

import (
	"fmt"
	"testing"

	"github.com/hyphae-run/hyphae/internal/flowschema"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// The demo's flow, with the peer IDs it gets at run time, is valid for the
// parser and for docs/flow.schema.json.
func TestDemoFlowValidatesAgainstTheSchema(t *testing.T) {
	s, err := flowschema.Load("../..")
	if err != nil {
		t.Fatal(err)
	}
	const p1, p2 = "12D3KooWEgYLD9nXKiZhcWrnZJ8quTEwMjTi6WcRsVhg3g2ZgEMc", "12D3KooWR3SoYd3KuVYRspu2tUJjdh1TgWAVpsNZtgTRM1R6YdKr"
	text := fmt.Sprintf(flowYAML, p1, p2)
	if _, _, err := flowfile.Parse([]byte(text), "demo.yaml", "."); err != nil {
		t.Fatalf("the parser refuses the demo flow: %v", err)
	}
	if err := flowschema.Validate(s, []byte(text)); err != nil {
		t.Fatalf("the schema refuses the demo flow: %v", err)
	}
}
