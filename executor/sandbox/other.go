//go:build !linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
)

// New returns a Sandbox that cannot contain: namespaces are Linux's.
func New(cfg Config) (*Sandbox, error) {
	return &Sandbox{why: "containment needs Linux namespaces; this is " + runtime.GOOS +
		" — have an admin set isolation: host on the context"}, nil
}

// Job is what Wrap needs to know of one job.
type Job struct {
	Dir     string
	Context uint64
	NoNet   bool
}

// Wrap fails: there are no namespaces here.
func (s *Sandbox) Wrap(cmd *exec.Cmd, j Job) error {
	return fmt.Errorf("%w: %s", ErrUnavailable, s.why)
}
