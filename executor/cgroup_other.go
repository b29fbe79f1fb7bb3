//go:build !linux

package executor

import (
	"errors"
	"log/slog"
	"os/exec"
	"syscall"
)

// cgroups and jobCgroup exist on Linux only; elsewhere jobs run in
// process groups.
type (
	cgroups   struct{}
	jobCgroup struct{}
)

func setupCgroups(Config, *slog.Logger) (*cgroups, Isolation) {
	return nil, Isolation{Note: "cgroups are a Linux feature"}
}

func (*cgroups) newJob(string, jobLimits) (*jobCgroup, []string, error) {
	return nil, nil, errors.New("cgroups are a Linux feature")
}

func (*cgroups) killLeftover(string) bool  { return false }
func (*cgroups) remove()                   {}
func (*cgroups) has(string) bool           { return false }
func (*jobCgroup) prepare(*exec.Cmd) error { return nil }
func (*jobCgroup) started(int) error       { return nil }
func (*jobCgroup) signal(syscall.Signal)   {}
func (*jobCgroup) kill()                   {}
func (*jobCgroup) finish() int64           { return 0 }
func (*jobCgroup) abort()                  {}
