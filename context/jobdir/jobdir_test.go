package jobdir

import "testing"

func TestNameRoundTrip(t *testing.T) {
	name := Name("job:3:42", 2)
	if name != "3-42-2" {
		t.Fatalf("Name = %q, want 3-42-2", name)
	}
	if key, ok := JobOf(name); !ok || key != "job:3:42" {
		t.Fatalf("JobOf(%q) = %q %v", name, key, ok)
	}
	for _, bad := range []string{"3-42", "a-b-c", "3-42-2-1", ""} {
		if _, ok := JobOf(bad); ok {
			t.Errorf("JobOf(%q) accepted", bad)
		}
	}
	if got := Name("hero:x/../y", 1); got != "hero_x____y-1" {
		t.Errorf("an odd key's name %q is not made safe", got)
	}
}
