package suggest

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"concurrency", "default_timeout", "python", "user", "cgroups"}
	for _, c := range []struct{ in, want string }{
		{"concurrancy", "concurrency"},
		{"pyhton", "python"},
		{"usr", "user"},
		{"ab", ""},      // too short for two edits to be a typo
		{"timeout", ""}, // too far from default_timeout
	} {
		if got := Closest(c.in, keys); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
