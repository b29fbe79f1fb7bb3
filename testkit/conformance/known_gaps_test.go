package conformance

import (
	"os"
	"testing"
)

// knownGaps names the bus tests that fail on this project today, with
// what is missing (issue 39). A test listed here skips, so CI stays
// green; HYPHAE_CONFORMANCE_STRICT=1 runs them all and shows the true
// score. A fix removes its entry.
var knownGaps = map[string]string{}

// gapped skips t when it is a known gap and strict mode is off.
func gapped(t *testing.T) {
	t.Helper()
	if gap := knownGaps[t.Name()]; gap != "" && os.Getenv("HYPHAE_CONFORMANCE_STRICT") == "" {
		t.Skip("known gap, issue 39: " + gap)
	}
}
