package scheduler_test

import (
	"testing"

	"github.com/hyphae-run/hyphae/context/store"
	"github.com/hyphae-run/hyphae/scheduler/flowfile"
)

// The flow-file language names wait_for steps' script type without
// importing the store; both must say the same.
func TestWaitForTypeIsTheStores(t *testing.T) {
	if flowfile.WaitForType != store.WaitForType {
		t.Fatalf("flowfile.WaitForType %q, store.WaitForType %q", flowfile.WaitForType, store.WaitForType)
	}
}
