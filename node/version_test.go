package node

import (
	"runtime/debug"
	"testing"
)

// ResolveVersion: -ldflags win, then a tagged module version, and a build
// that names none (or only a pseudo-version Go made up) is DevelVersion.
func TestResolveVersion(t *testing.T) {
	t.Parallel()
	mod := func(v string) *debug.BuildInfo { return &debug.BuildInfo{Main: debug.Module{Version: v}} }
	for _, c := range []struct {
		ld   string
		bi   *debug.BuildInfo
		want string
	}{
		{DevelVersion, nil, DevelVersion},
		{DevelVersion, mod(""), DevelVersion},
		{DevelVersion, mod("(devel)"), DevelVersion},
		{DevelVersion, mod("v0.0.0-20261125100000-994c1f9de1eb"), DevelVersion},
		{DevelVersion, mod("v0.0.0-20261125100000-994c1f9de1eb+dirty"), DevelVersion},
		{DevelVersion, mod("v0.2.1-0.20261125100000-994c1f9de1eb"), DevelVersion},
		{DevelVersion, mod("v0.3.0-rc.1.0.20261125100000-994c1f9de1eb+dirty"), DevelVersion},
		{DevelVersion, mod("v0.3.0"), "v0.3.0"},             // go install …@v0.3.0
		{DevelVersion, mod("v0.3.0+dirty"), "v0.3.0+dirty"}, // go build at a tag, modified
		{"v0.2.0", mod("v0.3.0"), "v0.2.0"},                 // scripts/release
		{"0.1.0-dev+994c1f9de1eb", mod("(devel)"), "0.1.0-dev+994c1f9de1eb"},
	} {
		var mv string
		if c.bi != nil {
			mv = c.bi.Main.Version
		}
		if got := ResolveVersion(c.ld, c.bi); got != c.want {
			t.Errorf("ResolveVersion(%q, module %q) = %q, want %q", c.ld, mv, got, c.want)
		}
	}
}
