package main

import "testing"

func TestPkgVersion(t *testing.T) {
	for in, want := range map[string]string{
		"0.1.0-dev+abc123":  "0.1.0~dev+abc123",
		"v0.2.0":            "0.2.0",
		"v0.2.0-rc.1":       "0.2.0~rc.1",
		"v0.2.0-rc-1":       "0.2.0~rc.1",
		"v0.2.0-3-gabc1234": "0.2.0+3.gabc1234",
		"1.0.0-3-gab+x":     "1.0.0+3.gab.x",
		"0.1.0-test.2":      "0.1.0~test.2",
	} {
		got, err := pkgVersion(in)
		if err != nil || got != want {
			t.Errorf("pkgVersion(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "dev", "v1.x", "1.0.0-a_b", "1.0.0+a/b"} {
		if got, err := pkgVersion(bad); err == nil {
			t.Errorf("pkgVersion(%q) = %q, want an error", bad, got)
		}
	}
}
