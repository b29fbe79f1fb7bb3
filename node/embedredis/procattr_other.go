//go:build unix && !linux

package embedredis

import "syscall"

// childProcAttr puts the child in its own process group. Pdeathsig is
// Linux-only: elsewhere a child outlives a kill -9 of the agent until the
// next Start on the same data dir shuts it down as a leftover.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
