// Package gobuild runs `go build` for the tests that build a hyphae
// binary (testkit/e2e, testkit/conformance) with the settings that change
// what is compiled set as scripts/release sets them: CGO_ENABLED=0,
// -trimpath, GOAMD64=v1, no GOFLAGS or GOEXPERIMENT from the caller. So
// the agents under test are built as the release is, and on a fresh
// machine the dependencies are compiled once for all of those builds and
// for the release build CI runs after the tests, instead of once per
// configuration. Link-time settings (-ldflags, -buildvcs, -o) stay the
// caller's.
package gobuild

import (
	"os"
	"os/exec"
	"strings"
)

// Command is `go build -trimpath args...` in dir (the current directory
// when empty) with the release's environment.
func Command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", append([]string{"build", "-trimpath"}, args...)...)
	cmd.Dir = dir
	cmd.Env = Env(os.Environ())
	return cmd
}

// Env is env without GOFLAGS and GOEXPERIMENT, with CGO_ENABLED=0 and
// GOAMD64=v1.
func Env(env []string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "GOAMD64":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CGO_ENABLED=0", "GOAMD64=v1")
}
