package cli

import (
	"testing"

	"github.com/hyphae-run/hyphae/cmd/hyphae/agent"
)

// job run takes --concurrency-key and --max-in-flight, and they reach
// job.run's params.
func TestJobRunConcurrencyFlags(t *testing.T) {
	cmd := newJobRun(&globals{agent: agent.New()})
	for _, name := range []string{"concurrency-key", "max-in-flight"} {
		if cmd.Flags().Lookup(name) == nil {
			t.Errorf("job run has no --%s", name)
		}
	}
	f := &jobRunFlags{ctx: 1, script: "true", typ: "sh"}
	f.ConcurrencyKey, f.MaxInFlight = "device-42", 2
	p, err := f.params()
	if err != nil {
		t.Fatal(err)
	}
	if p.ConcurrencyKey != "device-42" || p.MaxInFlight != 2 {
		t.Fatalf("params carry concurrency_key %q, max_in_flight %d", p.ConcurrencyKey, p.MaxInFlight)
	}
}
