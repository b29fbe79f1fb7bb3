package testlog

import (
	"fmt"
	"strings"
	"testing"
)

// The tail keeps the newest lines whole and its memory bounded, however
// much is logged: older lines go first, half at a time, marked […].
func TestTailKeepsTheNewestLines(t *testing.T) {
	var l tail
	for i := range 100_000 {
		fmt.Fprintf(&l, "line %06d %s\n", i, strings.Repeat("x", 80))
	}
	if l.buf.Len() > tailMax {
		t.Errorf("tail holds %d bytes, over its bound of %d", l.buf.Len(), tailMax)
	}
	if !strings.HasPrefix(l.buf.String(), "[…]\n") {
		t.Error("dropped lines are not marked")
	}
	last := strings.Split(l.last(3), "\n")
	for k, want := range []string{"line 099997 ", "line 099998 ", "line 099999 "} {
		if k >= len(last) || !strings.HasPrefix(last[k], want) {
			t.Fatalf("last 3 lines = %q, want lines 99997-99999", last)
		}
	}
}
