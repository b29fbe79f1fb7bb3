package poll_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyphae-run/hyphae/internal/poll"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	var n atomic.Int32
	if !poll.Until(time.Minute, func() bool { return n.Add(1) == 3 }) {
		t.Fatal("Until gave up on a condition that came true")
	}
	if n.Load() != 3 {
		t.Fatalf("cond called %d times, want 3 (stop at the first true)", n.Load())
	}
}

func TestUntilGivesUpAfterTheDeadline(t *testing.T) {
	if poll.Until(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until reported a condition that never held")
	}
}
