package e2e

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// `hyphae demo` runs three agents and a cross-tenant flow and exits 0
// within a bound.
func TestDemoExitsZero(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "demo", "--timeout", "2m").CombinedOutput()
	if err != nil {
		t.Fatalf("hyphae demo: %v\n%s", err, out)
	}
	for _, want := range []string{"all three see each other", "finished", "report.report", "inventory: 84", "What crossed the wire"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
